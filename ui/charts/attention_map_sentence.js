// The sentence view (ui/charts/attention_sentence.py sends its data): the running text, one button per word (a
// toolbar: one tab stop, arrow keys move along the text, Home/End jump), and for the word focused, tapped or hovered
// the words it attends to shaded on the weights' colour scale, each with a bar under it as thick as its share and
// the share above it. Every text is Python's, written with textContent; nothing is computed here but a bar's width.
const SENTENCE_FOCUS = new WeakMap(); // per mounted root: the word picked, kept across redraws

function sentenceView(root, s) {
  const T = s.tokens.length;
  const level = Uint8Array.from(atob(s.colour), (ch) => ch.charCodeAt(0));
  const shares = s.shares.split('|');
  const kept = SENTENCE_FOCUS.get(root);
  let picked = kept !== undefined && kept < T ? kept : null;
  const make = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  };
  const title = make('div', 'title', s.title);
  const hint = make('p', 'hint', s.hint);
  const text = make('div', 'sentence');
  text.setAttribute('role', 'toolbar');
  text.setAttribute('aria-label', `${s.title}: the text, one button per word`);
  const live = make('p', 'work');
  live.setAttribute('aria-live', 'polite');
  live.dataset.testid = 'sentence-work';
  const words = s.tokens.map((token, i) => {
    const b = make('button', 'word');
    b.type = 'button';
    b.dataset.i = i;
    b.tabIndex = -1;
    const share = make('span', 'share');
    share.setAttribute('aria-hidden', 'true');
    const label = make('span', 'token', token);
    b.append(share, label);
    text.append(b, document.createTextNode(' '));
    return { b, share };
  });
  const show = (q) => {
    words.forEach(({ b, share }, k) => {
      b.classList.toggle('query', k === q);
      b.classList.remove('seen', 'masked');
      b.style.background = '';
      b.style.color = '';
      b.style.borderBottomWidth = '';
      share.textContent = '';
      if (q === null) return;
      const i = level[q * T + k];
      if (i === s.masked) {
        b.classList.add('masked');
        return;
      }
      const text = shares[q * T + k];
      if (!text) return;
      b.classList.add('seen');
      b.style.background = s.palette[i];
      b.style.color = s.ink[i] === '1' ? '#ffffff' : '#000000';
      b.style.borderBottomWidth = `${Math.max(1, Math.round((i / 254) * 8))}px`; // as thick as the share
      share.textContent = text;
    });
    live.textContent = q === null ? '' : s.rows[q];
  };
  const focusWord = (k) => {
    words.forEach(({ b }, j) => (b.tabIndex = j === k ? 0 : -1));
    words[k].b.focus();
  };
  text.addEventListener('pointerover', (e) => {
    const b = e.target.closest && e.target.closest('button.word');
    if (b) show(+b.dataset.i);
  });
  text.addEventListener('pointerleave', () => show(picked));
  text.addEventListener('click', (e) => {
    const b = e.target.closest && e.target.closest('button.word');
    if (!b) return;
    picked = +b.dataset.i;
    SENTENCE_FOCUS.set(root, picked);
    words.forEach(({ b: w }, j) => (w.tabIndex = j === picked ? 0 : -1));
    show(picked);
  });
  text.addEventListener('focusin', (e) => {
    const b = e.target.closest && e.target.closest('button.word');
    if (!b) return;
    picked = +b.dataset.i;
    SENTENCE_FOCUS.set(root, picked);
    show(picked);
  });
  text.addEventListener('keydown', (e) => {
    const at = picked === null ? 0 : picked;
    const to = { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1, Home: 0, End: T - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    focusWord(Math.max(0, Math.min(T - 1, to)));
  });
  words[picked === null ? 0 : picked].b.tabIndex = 0;
  root.replaceChildren(title, hint, text, live);
  root.style.setProperty('--sentence-mark', s.mark);
  show(picked);
}
