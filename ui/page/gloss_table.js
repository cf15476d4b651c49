// A table whose column names (or first-column names) show a one-line gloss on hover and on keyboard focus
// (ui/page/gloss_table.py). Every text is written with textContent: nothing sent is ever read as HTML.
export default function (component) {
  const { parentElement, data } = component;
  const root = parentElement.querySelector('.gtab');
  if (!root) return;
  const sent = JSON.parse(new TextDecoder().decode(data));
  const id = `gtab-${(sent.key || 'table').replace(/[^a-zA-Z0-9_-]/g, '_')}`;
  const glosses = sent.glosses || {};
  const cell = (tag, text, klass) => {
    const el = document.createElement(tag);
    el.textContent = text;
    if (klass) el.className = klass;
    return el;
  };
  let tips = [];
  const term = (host, text, n) => {
    // a name with a gloss: a button that describes itself by its tooltip
    const gloss = glosses[text];
    if (gloss === undefined) { host.textContent = text; return; }
    const button = cell('button', text, 'term');
    button.type = 'button';
    const tip = cell('span', gloss, 'tip');
    tip.id = `${id}-tip-${n}`;
    tip.setAttribute('role', 'tooltip');
    tip.hidden = true;
    button.setAttribute('aria-describedby', tip.id);
    host.append(button, tip);
    tips.push({ host, button, tip });
  };
  const table = document.createElement('table');
  if (sent.caption) table.append(cell('caption', sent.caption));
  const heads = sent.heads;
  const head = document.createElement('thead');
  const top = document.createElement('tr');
  heads.forEach((name, j) => {
    const th = document.createElement('th');
    th.scope = 'col';
    if (sent.by === 'head') term(th, name, j); else th.textContent = name;
    top.append(th);
  });
  head.append(top);
  const body = document.createElement('tbody');
  sent.rows.forEach((row, i) => {
    const tr = document.createElement('tr');
    row.forEach((text, j) => {
      if (j === 0) {
        const th = document.createElement('th');
        th.scope = 'row';
        if (sent.by === 'row') term(th, text, `r${i}`); else th.textContent = text;
        tr.append(th);
        return;
      }
      const td = cell('td', text, sent.numeric[j] ? 'num' : '');
      td.dataset.label = heads[j];
      tr.append(td);
    });
    body.append(tr);
  });
  table.append(head, body);
  root.replaceChildren(table);
  root.classList.toggle('wide', sent.by === 'head');

  let shown = null;
  let leaving = 0;
  const hide = () => { if (shown) shown.tip.hidden = true; shown = null; };
  const show = (one) => {
    clearTimeout(leaving);
    if (shown && shown !== one) hide();
    shown = one;
    one.tip.hidden = false;
    // under its name, kept inside the table's column (never wider than the page)
    const box = root.getBoundingClientRect();
    const at = one.button.getBoundingClientRect();
    const width = one.tip.offsetWidth;
    const left = Math.max(0, Math.min(at.left - box.left, box.width - width));
    one.tip.style.left = `${left}px`;
    one.tip.style.top = `${at.bottom - box.top + 4}px`;
  };
  tips.forEach((one) => {
    one.button.addEventListener('focus', () => show(one));
    one.button.addEventListener('blur', () => { if (shown === one) hide(); });
    one.button.addEventListener('click', () => show(one));  // a tap too (Escape, or a tap elsewhere, hides it)
    one.host.addEventListener('mouseenter', () => show(one));
    one.host.addEventListener('mouseleave', () => {
      clearTimeout(leaving);
      leaving = setTimeout(() => { if (shown === one && document.activeElement !== one.button) hide(); }, 250);
    });
  });
  const escape = (event) => { if (event.key === 'Escape' && shown) { hide(); } };
  document.addEventListener('keydown', escape);

  // Reflow: cards when the table, drawn as a table, is wider than its column
  let width = -1;
  const fit = () => {
    if (!root.classList.contains('wide') || root.clientWidth === width) return;  // a new width only
    width = root.clientWidth;
    hide();
    root.classList.remove('cards');
    if (table.scrollWidth > root.clientWidth + 1) root.classList.add('cards');
  };
  fit();
  const observer = new ResizeObserver(() => fit());
  observer.observe(root);
  return () => { observer.disconnect(); document.removeEventListener('keydown', escape); clearTimeout(leaving); };
}
