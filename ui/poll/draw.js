// Draw your prediction (ui/poll/draw.py): one bar per key, dragged by mouse or touch, or moved with the keys of a
// slider; the bars always sum to 1. Rule: the bar moved takes its new value v (0 to 1) and the other bars are scaled
// by the same factor so that they share 1 − v as they shared the rest before (all of them at 0: equal shares).
// Submit sends the row once (setTriggerValue). Every label is written with textContent, never as HTML.
export default function (component) {
  const { parentElement, data, setTriggerValue } = component;
  const root = parentElement.querySelector('.drow');
  if (!root) return;
  const sent = JSON.parse(new TextDecoder().decode(data));
  const n = sent.keys.length;
  const sign = JSON.stringify([sent.id, sent.keys, sent.value, sent.disabled]);
  // a rerun that sends the same question keeps what the student has drawn so far
  let w = root.dataset.sign === sign && root._w && root._w.length === n ? root._w : sent.value.slice();
  root.dataset.sign = sign;
  root.textContent = '';
  const el = (tag, klass, text) => {
    const e = document.createElement(tag);
    if (klass) e.className = klass;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const pct = (x) => `${(100 * x).toFixed(1)}%`;
  const group = el('div', 'group');
  group.setAttribute('role', 'group');
  const title = el('p', 'title', sent.label);
  title.id = `drow-title-${sent.id}`;
  group.setAttribute('aria-labelledby', title.id);
  const help = el('p', 'help', sent.help);
  const rows = [];
  const set = (i, v) => {
    // bar i to v; the others scaled to share 1 − v in their old proportions (all 0: equal shares)
    v = Math.min(1, Math.max(0, v));
    const rest = w.reduce((s, x, j) => (j === i ? s : s + x), 0);
    w = w.map((x, j) => (j === i ? v : rest > 1e-12 ? (x * (1 - v)) / rest : (1 - v) / (n - 1)));
    root._w = w;
    paint();
  };
  const paint = () => {
    rows.forEach(({ track, fill, out }, j) => {
      fill.style.width = pct(w[j]);
      out.textContent = w[j].toFixed(2);
      track.setAttribute('aria-valuenow', (100 * w[j]).toFixed(1));
      track.setAttribute('aria-valuetext', `${sent.keys[j]}: ${w[j].toFixed(2)} (${pct(w[j])})`);
    });
    total.textContent = `${sent.sum_text} ${w.reduce((s, x) => s + x, 0).toFixed(2)}`;
  };
  sent.keys.forEach((key, j) => {
    const row = el('div', 'row');
    const name = el('span', 'key', key);
    name.id = `drow-${sent.id}-k${j}`;
    const track = el('div', 'track');
    track.setAttribute('role', 'slider');
    track.setAttribute('aria-labelledby', name.id);
    track.setAttribute('aria-valuemin', '0');
    track.setAttribute('aria-valuemax', '100');
    track.dataset.key = String(j);
    if (sent.disabled) track.setAttribute('aria-disabled', 'true');
    track.tabIndex = 0;
    const fill = el('div', 'fill');
    track.append(fill);
    const out = el('span', 'val');
    out.setAttribute('aria-hidden', 'true');
    row.append(name, track, out);
    group.append(row);
    rows.push({ track, fill, out });
    if (sent.disabled) return;
    const at = (ev) => {
      const box = track.getBoundingClientRect();
      set(j, (ev.clientX - box.left) / box.width);
    };
    track.addEventListener('pointerdown', (ev) => {
      ev.preventDefault();
      track.focus();
      track.setPointerCapture(ev.pointerId);
      at(ev);
    });
    track.addEventListener('pointermove', (ev) => { if (track.hasPointerCapture(ev.pointerId)) at(ev); });
    track.addEventListener('keydown', (ev) => {
      const steps = { ArrowRight: 0.01, ArrowUp: 0.01, ArrowLeft: -0.01, ArrowDown: -0.01, PageUp: 0.1, PageDown: -0.1 };
      if (ev.key in steps) set(j, Math.round((w[j] + steps[ev.key]) * 100) / 100);
      else if (ev.key === 'Home') set(j, 0);
      else if (ev.key === 'End') set(j, 1);
      else return;
      ev.preventDefault();
    });
  });
  const total = el('p', 'total');
  const submit = el('button', 'submit', sent.submit);
  submit.type = 'button';
  submit.disabled = !!sent.disabled;
  const status = el('p', 'status', sent.status || '');
  status.setAttribute('role', 'status');
  submit.addEventListener('click', () => {
    const s = w.reduce((a, x) => a + x, 0);
    const row = w.map((x) => x / s);
    status.textContent = sent.sending;
    if (setTriggerValue) setTriggerValue('submit', row);
  });
  root.append(title, help, group, total, submit, status);
  paint();
}
