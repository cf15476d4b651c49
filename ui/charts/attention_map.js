// Attention Lab's attention map (ui/charts/attention_map.py registers it): one or more T × T maps on one colour
// scale, a click or a key answered in the browser. Every number shown arrives from Python as text; every label is
// written with textContent or setAttribute (never parsed as HTML). Plain JavaScript, no build step, no network.
const STATE = new WeakMap(); // per mounted root: the picked cell and each grid's active cell, kept across redraws
const MASKED = 255; // the colour index of a masked cell

const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text;
  return e;
};
const unpack = (b64) => Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
const split = (text) => (text === null || text === undefined ? null : text.split('|'));

// The payload arrives as UTF-8 JSON bytes (ui/charts/attention_map.py's encoded); a plain object passes through.
const decode = (raw) => {
  if (!raw) return null;
  if (raw instanceof Uint8Array || raw instanceof ArrayBuffer) return JSON.parse(new TextDecoder().decode(raw));
  return raw;
};

export default function attentionMap(component) {
  const data = decode(component.data);
  if (data && data.frames && !component.framed) return framesMount({ ...component, data }, attentionMap);
  const { parentElement, setTriggerValue } = component;
  const root = parentElement.querySelector('.amap');
  if (root && data && data.sentence) return sentenceView(root, data.sentence); // attention_map_sentence.js
  if (!root || !data || !data.maps) return;
  const R = data.rows.length;
  const C = data.cols.length;
  const M = data.maps.length;
  const shape = `${R}x${C}x${M}`;
  const old = STATE.get(root) || {};
  const st = { shape, pick: null, active: data.maps.map(() => [0, 0]), serverPick: JSON.stringify(data.pick || null) };
  if (old.shape === shape) {
    st.pick = old.pick;
    st.active = old.active;
    st.zoom = old.zoom;
  }
  if (old.serverPick !== st.serverPick && data.pick) st.pick = { m: data.pick[0], r: data.pick[1], c: data.pick[2] };
  STATE.set(root, st);

  const maps = data.maps.map((m) => ({
    ...m,
    idx: unpack(m.colour),
    tips: split(m.tips) || levelTips(data, m.colour), // frames.js: a big grid's tips are its level texts
    texts: split(m.cells),
    expected: m.expected || null, // '1' per cell a task's solution attends to
    work: m.work === undefined || m.work === null ? null : data.works[m.work],
    split: {},
  }));
  const ink = (i) => (data.ink[i] === '1' ? '#ffffff' : '#000000');
  const fill = (i) => (i === MASKED ? data.mask.fill : data.palette[i]);
  const about = (m, r, c) => {
    const k = r * C + c;
    const masked = maps[m].idx[k] === MASKED;
    return `${data.yTitle} ${data.rows[r]} → ${data.xTitle} ${data.cols[c]}: ${maps[m].tips[k]}` +
      (masked && data.mask.why ? ` (${data.mask.why})` : '');
  };

  // The worked calculation: Python's line templates with {fields} filled from Python's texts, nothing computed.
  const field = (m, name, r, c) => {
    const w = maps[m].work || {};
    const k = r * C + c;
    if (name === 'row') return data.rows[r];
    if (name === 'col') return data.cols[c];
    if (name === 'value') return maps[m].tips[k];
    const cache = maps[m].split;
    if (w.cell && name in w.cell) return (cache[name] ||= split(w.cell[name]))[k];
    if (w.row && name in w.row) return w.row[name][r].split('|').join(w.join || ', ');
    if (w.col && name in w.col) return w.col[name][c].split('|').join(w.join || ', ');
    if (w.pairs && name in w.pairs) {
      const [a, b, times, plus] = w.pairs[name];
      const left = w.row[a][r].split('|');
      const right = w.col[b][c].split('|');
      return left.map((x, i) => `${x}${times}${right[i]}`).join(plus);
    }
    if (w.terms && name in w.terms) {
      const [source, plus] = w.terms[name];
      return (cache[name] ||= split(w.cell[source]))[k].split(';').join(plus);
    }
    if (w.scalar && name in w.scalar) return w.scalar[name];
    return '';
  };
  const lines = (m, r, c) => {
    const w = maps[m].work || {};
    const masked = maps[m].idx[r * C + c] === MASKED;
    const templates = (masked ? w.masked : w.lines) || ['{row} → {col}: {value}'];
    return templates.map((t) => t.replace(/\{(\w+)\}/g, (_, name) => field(m, name, r, c)));
  };

  let observer = null;
  let lastWidth = 0;
  const build = () => {
    const own = Math.round(root.clientWidth || 0); // the column's px; the page's budget when it is not laid out yet
    const width = own && data.width ? Math.min(own, data.width) : own || data.width || 700;
    lastWidth = own;
    root.classList.toggle('present', !!data.present);
    root.style.setProperty('--amap-expected', data.expectedColour || '#111827');
    const font = data.present ? 17 : 13;
    const longRow = Math.max(1, ...data.rows.map((s) => s.length));
    const longCol = Math.max(1, ...data.cols.map((s) => s.length));
    const grid = data.columns ? gridSizes(data, width, font) : null; // the model view's grid (frames.js)
    const rowPx = grid && grid.tiny ? 4 : Math.min(data.present ? 160 : 120, Math.ceil(longRow * font * 0.62) + 10);
    const across = Math.max(1, Math.min(M, data.across || M)); // maps a row
    const per = grid ? grid.per : (width - 24 * (across - 1)) / across;
    const most = data.present ? 64 : 48;
    const room = Math.min(per - rowPx - 12, data.area || Infinity); // the cells' area: at most the page's
    const fit = Math.max(3, Math.min(most, Math.floor(room / C)));
    // a grid's maps may have cells under a pixel; zoomBar (attention_map_export.js) zooms a big map
    const cell = grid ? Math.max(0.5, Math.min(most, room / C)) : data.raster ? fit * (st.zoom || 1) : fit;
    const step = Math.max(1, Math.ceil((font * 1.25) / cell)); // every step-th label shown; the rest on hover/focus
    const tilted = !(grid && grid.tiny) && longCol * font * 0.62 > cell - 4;
    const colPx = grid && grid.tiny ? 4 : tilted ? Math.min(data.present ? 160 : 120, Math.ceil(longCol * font * 0.62) + 10) : font + 10;
    const valuePx = Math.max(9, Math.min(data.present ? 20 : 14, Math.round(cell * 0.3)));
    // Row labels lie flat: rows a little under a line high (a 4 × 16 matrix at 4 tokens) keep every label in a
    // smaller font (10 px at least, 13 in presenter view) instead of hiding every other one.
    const small = Math.max(data.present ? 13 : 10, Math.floor(cell * 0.8));
    const rowFont = step > 1 && small * 1.25 <= cell ? small : font;
    const thin = (i, row) => (grid && grid.tiny) || data.highlight !== i && i % (row && rowFont < font ? 1 : step) !== 0;

    const tip = el('div', 'tip');
    tip.setAttribute('aria-hidden', 'true');
    const work = el('div', 'work');
    work.setAttribute('aria-live', 'polite');
    work.dataset.testid = 'attention-map-work';
    const grids = [];

    const reveal = (g, r, c) => {
      for (const g2 of grids) {
        g2.rowLabels.forEach((s, i) => s.classList.toggle('on', g2 === g && i === r));
        g2.colLabels.forEach((s, i) => s.classList.toggle('on', g2 === g && i === c));
      }
      if (r === null) {
        tip.hidden = true;
        return;
      }
      const box = g.cellBox(r, c);
      const base = root.getBoundingClientRect();
      tip.textContent = about(g.m, r, c);
      tip.hidden = false;
      tip.style.left = `${Math.max(0, Math.min(box.left - base.left + box.width + 6, width - 260))}px`;
      tip.style.top = `${box.top - base.top + box.height + 4}px`;
    };
    const showWork = (m, r, c) => {
      work.replaceChildren(...lines(m, r, c).map((t) => el('p', '', t)));
    };
    const drawPicks = () => grids.forEach((g) => g.drawPick(st.pick)); // the same cell outlined in every map
    const share = (r, c) => {
      // The picked cell in the page's URL, as ui/shell/url.py writes it: a share link carries it, no run needed.
      if (!data.link) return;
      try {
        const u = new URL(window.location.href);
        u.searchParams.set(data.link, `${r},${c}`);
        window.history.replaceState(window.history.state, '', u.toString());
      } catch (e) {
        /* an address the browser will not rewrite: the pick stays on the page */
      }
    };
    const pick = (m, r, c) => {
      st.pick = { m, r, c };
      drawPicks();
      showWork(m, r, c);
      share(r, c);
      if (data.report && setTriggerValue) setTriggerValue('pick', { map: m, row: r, col: c });
    };

    const onKey = (g) => (e) => {
      let [r, c] = st.active[g.m];
      const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
      if (e.key in moves) {
        r = Math.max(0, Math.min(R - 1, r + moves[e.key][0]));
        c = Math.max(0, Math.min(C - 1, c + moves[e.key][1]));
      } else if (e.key === 'Home') c = e.ctrlKey ? ((r = 0), 0) : 0;
      else if (e.key === 'End') c = e.ctrlKey ? ((r = R - 1), C - 1) : C - 1;
      else if (e.key === 'PageUp') r = Math.max(0, r - step * 4);
      else if (e.key === 'PageDown') r = Math.min(R - 1, r + step * 4);
      else if (e.key === 'Enter' || e.key === ' ' || e.key === 'Spacebar') {
        e.preventDefault();
        pick(g.m, r, c);
        return;
      } else return;
      e.preventDefault();
      g.activate(r, c, true);
    };

    const labelSpan = (text, i, cls) => {
      const row = cls[0] === 'y';
      const s = el('span', `label ${cls}${thin(i, row) ? ' thin' : ''}${data.highlight === i ? ' hl' : ''}`, text);
      if (row && rowFont < font) s.style.fontSize = `${rowFont}px`;
      s.style.maxWidth = `${(row ? rowPx : colPx) - 8}px`; // cut with …; whole on hover and focus
      return s;
    };

    const vector = (m) => {
      const map = maps[m];
      const table = el('table', 'grid');
      table.style.width = `${rowPx + C * cell}px`; // fixed: a label wider than its cell never widens the map
      table.setAttribute('role', 'grid');
      const g = { m, rowLabels: [], colLabels: [], cells: [] };
      const head = el('tr');
      const corner = el('td', 'corner');
      corner.style.width = `${rowPx}px`;
      head.append(corner);
      data.cols.forEach((label, c) => {
        const th = el('th', `col${tilted ? ' tilted' : ''}`);
        th.setAttribute('scope', 'col');
        th.style.height = `${colPx}px`;
        th.style.width = `${cell}px`;
        const s = labelSpan(label, c, 'x');
        th.append(s);
        g.colLabels.push(s);
        head.append(th);
      });
      table.append(head);
      for (let r = 0; r < R; r++) {
        const tr = el('tr');
        const th = el('th', 'row');
        th.setAttribute('scope', 'row');
        th.style.width = `${rowPx}px`;
        const s = labelSpan(data.rows[r], r, 'y');
        th.append(s);
        g.rowLabels.push(s);
        tr.append(th);
        for (let c = 0; c < C; c++) {
          const k = r * C + c;
          const i = map.idx[k];
          const td = el('td', 'cell');
          td.setAttribute('role', 'gridcell');
          td.tabIndex = -1;
          td.dataset.r = r;
          td.dataset.c = c;
          td.style.width = td.style.height = `${cell}px`;
          td.style.background = fill(i);
          td.style.color = i === MASKED ? data.mask.ink : ink(i);
          td.style.fontSize = `${valuePx}px`;
          if (map.texts) td.textContent = map.texts[k];
          td.setAttribute('aria-label', about(m, r, c));
          if (data.highlight !== null && (r === data.highlight || c === data.highlight)) td.classList.add('hl');
          if (map.expected && map.expected[k] === '1') td.classList.add('expected');
          tr.append(td);
          g.cells.push(td);
        }
        table.append(tr);
      }
      g.node = table;
      g.cellBox = (r, c) => g.cells[r * C + c].getBoundingClientRect();
      g.activate = (r, c, focus) => {
        const [r0, c0] = st.active[m];
        g.cells[r0 * C + c0].tabIndex = -1;
        st.active[m] = [r, c];
        const td = g.cells[r * C + c];
        td.tabIndex = 0;
        if (focus) td.focus();
      };
      g.drawPick = (p) => {
        g.cells.forEach((td) => td.classList.remove('picked'));
        if (p) g.cells[p.r * C + p.c].classList.add('picked');
      };
      const at = (e) => e.target.closest && e.target.closest('td.cell');
      table.addEventListener('pointerover', (e) => {
        const td = at(e);
        if (td) reveal(g, +td.dataset.r, +td.dataset.c);
      });
      table.addEventListener('pointerleave', () => reveal(g, null, null));
      table.addEventListener('click', (e) => {
        const td = at(e);
        if (!td) return;
        g.activate(+td.dataset.r, +td.dataset.c, true);
        pick(m, +td.dataset.r, +td.dataset.c);
      });
      table.addEventListener('focusin', (e) => {
        const td = at(e);
        if (td) reveal(g, +td.dataset.r, +td.dataset.c);
      });
      table.addEventListener('focusout', () => reveal(g, null, null));
      table.addEventListener('keydown', onKey(g));
      return g;
    };

    const raster = (m) => {
      const map = maps[m];
      const g = { m, rowLabels: [], colLabels: [] };
      const box = el('div', 'raster');
      box.style.gridTemplateColumns = `${rowPx}px ${C * cell}px`;
      box.style.gridTemplateRows = `${colPx}px ${R * cell}px`;
      const top = el('div', 'top');
      const left = el('div', 'left');
      top.setAttribute('aria-hidden', 'true');
      left.setAttribute('aria-hidden', 'true');
      data.cols.forEach((label, c) => {
        const s = labelSpan(label, c, `x${tilted ? ' tilted' : ''}`);
        s.style.left = `${c * cell + cell / 2}px`;
        top.append(s);
        g.colLabels.push(s);
      });
      data.rows.forEach((label, r) => {
        const s = labelSpan(label, r, 'y');
        s.style.top = `${r * cell + cell / 2}px`;
        left.append(s);
        g.rowLabels.push(s);
      });
      const stage = el('div', 'stage');
      const canvas = el('canvas');
      const dpr = window.devicePixelRatio || 1;
      canvas.width = Math.round(C * cell * dpr);
      canvas.height = Math.round(R * cell * dpr);
      canvas.style.width = `${C * cell}px`;
      canvas.style.height = `${R * cell}px`;
      canvas.setAttribute('aria-hidden', 'true');
      const ctx = canvas.getContext('2d');
      ctx.scale(dpr, dpr);
      paintCells(ctx, map.idx, R, C, cell, fill); // frames.js: one pixel a cell, scaled up
      if (data.highlight !== null && data.highlight < Math.min(R, C)) {
        ctx.strokeStyle = data.highlightColour;
        ctx.lineWidth = 2;
        ctx.strokeRect(1, data.highlight * cell + 1, C * cell - 2, cell - 2);
        ctx.strokeRect(data.highlight * cell + 1, 1, cell - 2, R * cell - 2);
      }
      if (map.expected) {
        ctx.strokeStyle = data.expectedColour;
        ctx.lineWidth = 1.5;
        ctx.setLineDash([4, 3]);
        for (let k = 0; k < R * C; k++) {
          if (map.expected[k] === '1') ctx.strokeRect((k % C) * cell + 1.5, Math.floor(k / C) * cell + 1.5, cell - 3, cell - 3);
        }
        ctx.setLineDash([]);
      }
      const grid = el('div', 'vgrid');
      grid.setAttribute('role', 'grid');
      grid.setAttribute('aria-rowcount', String(R));
      grid.setAttribute('aria-colcount', String(C));
      const row = el('div', 'vrow');
      row.setAttribute('role', 'row');
      const focus = el('div', 'vcell');
      focus.setAttribute('role', 'gridcell');
      focus.tabIndex = 0;
      row.append(focus);
      grid.append(row);
      const pickBox = el('div', 'pickbox');
      pickBox.setAttribute('aria-hidden', 'true');
      pickBox.hidden = true;
      stage.append(canvas, pickBox, grid);
      box.append(el('div', 'corner'), top, left, stage);
      g.node = box;
      g.grid = grid;
      const place = (node, r, c) => {
        node.style.left = `${c * cell}px`;
        node.style.top = `${r * cell}px`;
        node.style.width = node.style.height = `${cell}px`;
      };
      g.cellBox = (r, c) => {
        const b = canvas.getBoundingClientRect();
        return { left: b.left + c * cell, top: b.top + r * cell, width: cell, height: cell };
      };
      g.activate = (r, c, doFocus) => {
        st.active[m] = [r, c];
        row.setAttribute('aria-rowindex', String(r + 1));
        focus.setAttribute('aria-colindex', String(c + 1));
        focus.setAttribute('aria-label', about(m, r, c));
        place(focus, r, c);
        if (doFocus) {
          focus.focus();
          reveal(g, r, c);
        }
      };
      g.drawPick = (p) => {
        pickBox.hidden = !p;
        if (p) place(pickBox, p.r, p.c);
      };
      const at = (e) => {
        const b = canvas.getBoundingClientRect();
        const r = Math.floor((e.clientY - b.top) / cell);
        const c = Math.floor((e.clientX - b.left) / cell);
        return r >= 0 && r < R && c >= 0 && c < C ? [r, c] : null;
      };
      stage.addEventListener('pointermove', (e) => {
        const rc = at(e);
        if (rc) reveal(g, ...rc);
      });
      stage.addEventListener('pointerleave', () => reveal(g, null, null));
      stage.addEventListener('click', (e) => {
        const rc = at(e);
        if (!rc) return;
        g.activate(...rc, true);
        pick(m, ...rc);
      });
      focus.addEventListener('focus', () => reveal(g, ...st.active[m]));
      focus.addEventListener('blur', () => reveal(g, null, null));
      grid.addEventListener('keydown', onKey(g));
      return g;
    };

    const figures = el('div', 'maps');
    maps.forEach((map, m) => {
      const fig = el('div', 'map');
      const title = el('div', 'title', map.title);
      title.id = `amap-title-${m}`;
      const desc = el('p', 'sr', map.about);
      desc.id = `amap-about-${m}`;
      const axes = el('div', 'axes', data.axes);
      const g = data.raster ? raster(m) : vector(m);
      const grid = g.grid || g.node;
      grid.setAttribute('aria-labelledby', title.id);
      grid.setAttribute('aria-describedby', desc.id);
      grid.dataset.testid = 'attention-map-grid';
      grids.push(g);
      fig.append(title, axes, g.node, desc);
      figures.append(fig);
    });

    const legend = el('div', 'legend');
    legend.setAttribute('aria-hidden', 'true');
    legend.append(el('span', 'ltitle', data.legend.title));
    const bar = el('span', 'bar');
    bar.style.background = `linear-gradient(to right, ${data.legend.stops.map(([p, col]) => `${col} ${p}%`).join(', ')})`;
    const ticks = el('span', 'ticks');
    data.legend.ticks.forEach(([p, text]) => {
      const t = el('span', 'tick', text);
      t.style.left = `${p}%`;
      ticks.append(t);
    });
    const scale = el('span', 'scale');
    scale.append(bar, ticks);
    legend.append(scale);
    if (data.mask.shown) {
      const sw = el('span', 'swatch');
      sw.style.background = data.mask.fill;
      legend.append(sw, el('span', '', data.mask.word));
    }
    const hint = el('p', 'hint', data.hint);
    const tools = exportBar(data, maps); // exportBar, zoomBar: attention_map_export.js
    if (data.raster && !grid) tools.prepend(zoomBar(st, build));
    // The map the keyboard is on keeps it: a redraw (a run that sends the map again, a zoom, a resize) puts the
    // focus back on that map's active cell instead of dropping it to the page.
    const focused = root.getRootNode().activeElement;
    const held = focused && root.contains(focused)
      ? [...root.querySelectorAll(':scope > .maps > .map')].findIndex((f) => f.contains(focused))
      : -1;
    root.replaceChildren(figures, legend, tools, hint, work, tip);
    if (grid) gridDecorate(data, root, figures);
    tip.hidden = true;
    grids.forEach((g) => g.activate(...st.active[g.m], g.m === held));
    root.dataset.drawnAt = String(performance.now()); // when it drew, on the page's clock (the benchmarks read it)
    drawPicks();
    if (st.pick && st.pick.m < M && st.pick.r < R && st.pick.c < C) {
      showWork(st.pick.m, st.pick.r, st.pick.c);
      share(st.pick.r, st.pick.c); // a run that rewrote the address without it: the link keeps the pick shown
    }
  };
  build();
  if (typeof ResizeObserver !== 'undefined') {
    let timer = 0;
    observer = new ResizeObserver(() => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        if (Math.abs((root.clientWidth || 0) - lastWidth) > 16) build();
      }, 150);
    });
    observer.observe(root);
  }
  return () => {
    if (observer) observer.disconnect();
  };
}
