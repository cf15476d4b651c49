// The attention map's figure for slides (ui/charts/attention_map.py registers it with the map's own script): the
// maps as drawn, saved as SVG or as PNG at 3× in the browser, no server run, no network. The figure is built with
// DOM calls from the component's data (labels and values as text nodes, never parsed as markup), then serialised.
const SVG_NS = 'http://www.w3.org/2000/svg';
const FIGURE_SCALE = 3; // PNG pixels per figure pixel

const svgEl = (tag, attrs, text) => {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  if (text !== undefined && text !== null) e.textContent = text;
  return e;
};

// The figure: every map of the component with its title (side by side; the model view's grid in its rows of
// heads), token labels on both axes, its cells in the palette's colours (the values inside while the map is small),
// and the legend under them. A grid's cells shrink so the figure stays about GRID_PX wide.
const GRID_PX = 2400;
function mapFigure(data, maps) {
  const R = data.rows.length;
  const C = data.cols.length;
  const font = 12;
  const chars = (labels) => Math.max(1, ...labels.map((s) => s.length));
  const across = Math.max(1, Math.min(maps.length, data.columns || data.across || maps.length)); // maps a row
  const rowPx = Math.min(140, Math.ceil(chars(data.rows) * font * 0.62) + 8);
  const fitted = Math.floor(560 / Math.max(R, C));
  const cell = data.columns
    ? Math.max(1, Math.min(40, fitted, Math.floor((GRID_PX / across - rowPx - 32) / C)))
    : Math.max(6, Math.min(40, fitted));
  const tilted = chars(data.cols) * font * 0.62 > cell - 2;
  const colPx = tilted ? Math.min(140, Math.ceil(chars(data.cols) * font * 0.62) + 8) : font + 8;
  const step = Math.max(1, Math.ceil((font * 1.2) / cell)); // every step-th label, as on screen
  const gap = 32;
  const titlePx = 22;
  const mapW = rowPx + C * cell;
  const mapH = titlePx + colPx + R * cell + gap;
  const width = across * mapW + (across - 1) * gap + 16;
  const legendY = Math.ceil(maps.length / across) * mapH - gap + 16;
  const height = legendY + 44;
  const barX = 8 + Math.min(220, data.legend.title.length * font * 0.62 + 12);
  const maskPx = data.mask.shown ? 32 + data.mask.word.length * font * 0.62 : 0;
  const full = Math.ceil(Math.max(width, barX + 216 + maskPx + data.axes.length * font * 0.62 + 8));
  const svg = svgEl('svg', { xmlns: SVG_NS, width: full, height, viewBox: `0 0 ${full} ${height}`, role: 'img' });
  svg.append(svgEl('title', {}, maps.map((m) => m.title).filter(Boolean).join(' · ') || 'attention map'));
  svg.append(svgEl('desc', {}, maps.map((m) => m.about).join(' ')));
  svg.append(svgEl('rect', { x: 0, y: 0, width: full, height, fill: '#ffffff' }));
  const cut = (s, px) => {
    const most = Math.max(2, Math.floor((px - 8) / (font * 0.62)));
    return s.length > most ? `${s.slice(0, most - 1)}…` : s; // a long token cut with …, as on screen
  };
  const text = (x, y, s, attrs) =>
    svgEl('text', { x, y, 'font-family': 'DejaVu Sans, Arial, sans-serif', 'font-size': font, fill: '#1f2328', ...attrs }, s);
  maps.forEach((map, m) => {
    const x0 = 8 + (m % across) * (mapW + gap);
    const y0 = Math.floor(m / across) * mapH;
    const g = svgEl('g', {});
    g.append(text(x0, y0 + 15, cut(map.title, mapW), { 'font-weight': 600 }));
    const top = y0 + titlePx + colPx;
    data.cols.forEach((label, c) => {
      if (c % step && c !== data.highlight) return;
      const cx = x0 + rowPx + c * cell + cell / 2;
      g.append(
        tilted
          ? text(cx + font / 3, top - 4, cut(label, colPx), { transform: `rotate(-90 ${cx + font / 3} ${top - 4})` })
          : text(cx, top - 4, label, { 'text-anchor': 'middle' })
      );
    });
    data.rows.forEach((label, r) => {
      if (r % step && r !== data.highlight) return;
      g.append(text(x0 + rowPx - 4, top + r * cell + cell / 2 + font / 3, cut(label, rowPx), { 'text-anchor': 'end' }));
    });
    const valuePx = Math.max(7, Math.min(12, Math.round(cell * 0.3)));
    for (let r = 0; r < R; r++) {
      for (let c = 0; c < C; c++) {
        const i = map.idx[r * C + c];
        const x = x0 + rowPx + c * cell;
        const y = top + r * cell;
        g.append(svgEl('rect', { x, y, width: cell, height: cell, fill: i === 255 ? data.mask.fill : data.palette[i] }));
        if (map.texts && cell >= 18) {
          const ink = i === 255 ? data.mask.ink : data.ink[i] === '1' ? '#ffffff' : '#000000';
          g.append(text(x + cell / 2, y + cell / 2 + valuePx / 3, map.texts[r * C + c], {
            'text-anchor': 'middle', 'font-size': valuePx, fill: ink,
          }));
        }
      }
    }
    if (data.highlight !== null && data.highlight < Math.min(R, C)) {
      const h = data.highlight;
      const stroke = { fill: 'none', stroke: data.highlightColour, 'stroke-width': 2 };
      g.append(svgEl('rect', { x: x0 + rowPx, y: top + h * cell, width: C * cell, height: cell, ...stroke }));
      g.append(svgEl('rect', { x: x0 + rowPx + h * cell, y: top, width: cell, height: R * cell, ...stroke }));
    }
    svg.append(g);
  });
  const grad = svgEl('linearGradient', { id: 'amap-legend', x1: 0, x2: 1, y1: 0, y2: 0 });
  data.legend.stops.forEach(([p, col]) => grad.append(svgEl('stop', { offset: `${p}%`, 'stop-color': col })));
  const defs = svgEl('defs', {});
  defs.append(grad);
  svg.append(defs);
  svg.append(text(8, legendY + 10, data.legend.title));
  svg.append(svgEl('rect', { x: barX, y: legendY, width: 200, height: 12, fill: 'url(#amap-legend)' }));
  data.legend.ticks.forEach(([p, label]) => {
    const anchor = p <= 0 ? 'start' : p >= 100 ? 'end' : 'middle';
    svg.append(text(barX + 2 * p, legendY + 28, label, { 'text-anchor': anchor }));
  });
  let axesX = barX + 216;
  if (data.mask.shown) {
    svg.append(svgEl('rect', { x: axesX, y: legendY, width: 12, height: 12, fill: data.mask.fill }));
    svg.append(text(axesX + 16, legendY + 10, data.mask.word));
    axesX += 16 + data.mask.word.length * font * 0.62 + 16;
  }
  svg.append(text(axesX, legendY + 10, data.axes)); // "rows: query · columns: key"
  return { svg, width: full, height };
}

const save = (blob, name) => {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
};

// The two buttons under the maps, and a status line that says what was saved.
function exportBar(data, maps) {
  const bar = document.createElement('div');
  bar.className = 'export';
  const note = document.createElement('span');
  note.className = 'note';
  note.setAttribute('role', 'status');
  const name = ((data.columns && data.heading) || maps.map((m) => m.title).join(' ') || 'attention map') // a grid: its heading
    .toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60) || 'attention-map';
  const button = (label, kind, title) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = label;
    b.title = title;
    b.dataset.kind = kind;
    b.addEventListener('click', () => {
      const { svg, width, height } = mapFigure(data, maps);
      const source = new XMLSerializer().serializeToString(svg);
      const blob = new Blob([source], { type: 'image/svg+xml' });
      if (kind === 'svg') {
        save(blob, `${name}.svg`);
        note.textContent = `Saved ${name}.svg`;
        return;
      }
      const img = new Image();
      img.onload = () => {
        const canvas = document.createElement('canvas');
        const scale = Math.min(FIGURE_SCALE, 16_000 / width, 16_000 / height); // a browser's canvas limit
        canvas.width = Math.round(width * scale);
        canvas.height = Math.round(height * scale);
        canvas.getContext('2d').drawImage(img, 0, 0, canvas.width, canvas.height);
        URL.revokeObjectURL(img.src);
        canvas.toBlob((png) => {
          save(png, `${name}.png`);
          note.textContent = `Saved ${name}.png (${canvas.width} × ${canvas.height} px)`;
        }, 'image/png');
      };
      img.src = URL.createObjectURL(blob);
    });
    return b;
  };
  bar.append(
    button('Save SVG', 'svg', 'Save these maps as an SVG figure (vector, for slides)'),
    button('Save PNG ×3', 'png', 'Save these maps as a PNG figure at three times their size'),
    note
  );
  return bar;
}

// A big map's zoom (raster maps: 32 × 32 tokens and more): ×1, ×2, ×4 its fitted cell size; the zoomed map scrolls
// inside its own box (a swipe pans it on a phone; the page itself never scrolls sideways). Buttons, so a keyboard
// reaches them; the picked cell and the active cell survive the redraw.
const ZOOMS = [1, 2, 4];
function zoomBar(st, rebuild) {
  const box = document.createElement('span');
  box.className = 'zoom';
  box.setAttribute('role', 'group');
  box.setAttribute('aria-label', 'Zoom the map');
  const now = st.zoom || 1;
  const button = (label, to, name) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = label;
    b.setAttribute('aria-label', name);
    b.disabled = to === now || !ZOOMS.includes(to);
    b.addEventListener('click', () => {
      const where = b.getRootNode();
      st.zoom = to;
      rebuild();
      // the keyboard stays where it was: the same button after the redraw, or the other one at the last zoom
      const buttons = [...where.querySelectorAll('.zoom button')].filter((x) => !x.disabled);
      const same = buttons.find((x) => x.getAttribute('aria-label') === name) || buttons[0];
      if (same) same.focus();
    });
    return b;
  };
  const i = ZOOMS.indexOf(now);
  const level = document.createElement('span');
  level.textContent = `zoom ×${now}`;
  box.append(button('−', ZOOMS[i - 1], 'Zoom out'), level, button('+', ZOOMS[i + 1], 'Zoom in'));
  return box;
}
