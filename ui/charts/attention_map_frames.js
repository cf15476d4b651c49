// The attention map's grid and frames (ui/charts/attention_grid.py and attention_frames.py send their data;
// attention_map.py puts this file before attention_map.js, whose default export calls these at a few hook points).
// The grid: every layer × head as small maps in columns, one picked map outlined. The frames: several versions of
// the same maps (β's values, a run's saved steps) scrubbed with a range input, redrawn here with no server run; the
// release sends one trigger (the frame) and writes the frame's link value into the address. Every text arrives
// from Python; nothing here computes a number.
const FRAMES = new WeakMap(); // per mounted element: the scrubber's nodes, the frame shown, the last redraw's cleanup
const GRID_GAP = 12; // px between two maps of the grid

function paintCells(ctx, idx, R, C, cell, fill) {
  // A raster map: one pixel a cell on a small canvas (one putImageData), drawn scaled up without smoothing, so
  // 4 layers × 16 heads of 64 × 64 cells paint in a few milliseconds.
  const rgb = new Map();
  const small = document.createElement('canvas');
  small.width = C;
  small.height = R;
  const sctx = small.getContext('2d', { willReadFrequently: true });
  const image = sctx.createImageData(C, R);
  for (let k = 0; k < R * C; k++) {
    const i = idx[k];
    if (!rgb.has(i)) {
      sctx.fillStyle = fill(i); // the browser parses the colour once per palette index
      sctx.fillRect(0, 0, 1, 1);
      rgb.set(i, sctx.getImageData(0, 0, 1, 1).data.slice(0, 4));
    }
    image.data.set(rgb.get(i), k * 4);
  }
  sctx.putImageData(image, 0, 0);
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(small, 0, 0, C * cell, R * cell);
}

function gridSizes(data, width, font) {
  // The grid's maps: `columns` across, each at most data.side px; token labels beside every map while they fit,
  // else only on hover and focus (the map alone takes the room).
  const cols = data.columns;
  const per = Math.min(data.side || 160, (width - GRID_GAP * (cols - 1)) / cols);
  const room = per - 12 - Math.min(80, Math.max(...data.rows.map((s) => s.length)) * font * 0.62 + 10);
  return { per, tiny: room < data.cols.length * font * 1.1 };
}

function gridDecorate(data, root, figures) {
  // The grid's layout, its heading, its description computed in Python and the outline of the picked map.
  root.classList.add('gridded');
  figures.classList.add('grid');
  figures.style.gridTemplateColumns = `repeat(${data.columns}, max-content)`;
  [...figures.children].forEach((fig, m) => {
    fig.classList.toggle('outlined', data.outline === m);
    const note = data.maps[m].note;
    if (note) fig.querySelector('.title').title = note;
  });
  const head = document.createElement('div');
  head.className = 'gridhead';
  const title = document.createElement('div');
  title.className = 'title';
  title.textContent = data.heading || '';
  const axes = document.createElement('div');
  axes.className = 'axes';
  axes.textContent = data.axes;
  const summary = document.createElement('p');
  summary.className = 'sr';
  summary.textContent = data.summary || '';
  head.append(title, axes, summary);
  root.prepend(head);
}

function levelTips(data, colour) {
  // Each cell's tip as the text of its colour level (Python sends the 256 texts once: data.levels).
  if (!data.levels) return null;
  return Array.from(atob(colour), (ch) => data.levels[ch.charCodeAt(0)]);
}

function framed(data, f) {
  // The data with frame f's maps: its colours, description and (where sent) exact tips and cell texts; without
  // exact tips, each cell's tip is its colour level's text (Python wrote the level texts).
  if (f === data.frame) return data;
  const frame = data.frames[f];
  const maps = data.maps.map((m, i) => {
    const fm = frame[i];
    const tips = fm.tips ?? null; // null: the level texts (attention_map.js calls levelTips)
    return { ...m, colour: fm.colour, about: fm.about, title: fm.title ?? m.title, tips, cells: fm.cells ?? null, work: null };
  });
  return { ...data, maps, pick: null };
}

function framesMount(component, draw) {
  // The scrubber above the maps (kept across redraws, so its focus stays while the arrow keys move it) and the
  // maps of the frame it shows.
  const { parentElement, data, setTriggerValue } = component;
  const root = parentElement.querySelector('.amap');
  if (!root) return undefined;
  const scrub = data.scrub;
  let s = FRAMES.get(parentElement);
  if (!s) {
    s = { box: document.createElement('div'), timer: 0 };
    s.box.className = 'amap-scrub';
    s.label = document.createElement('label');
    s.input = document.createElement('input');
    s.input.type = 'range';
    s.input.id = 'amap-scrub-input';
    s.label.htmlFor = s.input.id;
    s.output = document.createElement('output');
    s.output.htmlFor = s.input.id;
    s.ends = document.createElement('span');
    s.ends.className = 'ends';
    s.box.append(s.label, s.input, s.output, s.ends);
    root.before(s.box);
    FRAMES.set(parentElement, s);
  }
  const sent = JSON.stringify([data.frame, data.frameLabels]);
  if (s.sent !== sent) {
    s.sent = sent;
    s.frame = data.frame; // the server's frame (a link, a preset) wins over one scrubbed before
  }
  const n = data.frames.length;
  s.frame = Math.max(0, Math.min(n - 1, s.frame));
  s.label.textContent = scrub.label;
  s.input.min = '0';
  s.input.max = String(n - 1);
  s.input.step = '1';
  s.input.value = String(s.frame);
  s.input.dataset.testid = 'attention-map-scrub';
  s.ends.textContent = `${data.frameLabels[0]} … ${data.frameLabels[n - 1]}`;
  const show = (f) => {
    s.frame = f;
    s.input.setAttribute('aria-valuetext', scrub.texts[f]);
    s.output.textContent = data.frameLabels[f];
    if (s.cleanup) s.cleanup();
    s.cleanup = draw({ ...component, data: framed(data, f), framed: true });
  };
  const send = () => {
    const f = s.frame;
    if (scrub.param) {
      const url = new URL(window.location.href);
      url.searchParams.set(scrub.param, scrub.values[f]);
      window.history.replaceState(window.history.state, '', url);
    }
    if (setTriggerValue) setTriggerValue('frame', f);
  };
  s.input.oninput = () => show(Number(s.input.value)); // drawn here: no server run
  s.input.onchange = () => {
    // a release (or a key): one trigger, once the control rests (three quick arrow presses send one)
    clearTimeout(s.timer);
    s.timer = setTimeout(send, scrub.wait || 300);
  };
  show(s.frame);
  return () => {
    if (s.cleanup) s.cleanup();
  };
}
