"""Figures for slides: save any chart of the page as SVG, or as PNG at 3× its size, in the browser.

Streamlit 1.67's chart menu offers "Download as PNG" (at 2× or the screen's pixel ratio) and full screen,
no SVG; it drops vega-embed's `actions` from a spec's usermeta.embedOptions (only theme, renderer and
padding pass) and embeds every chart with actions off. So this panel does the rest: it lists the page's
charts by title and saves the one picked from what Vega drew, with no server round trip and no external
service. The JavaScript below is this module's own static code (no user text is ever put into HTML: chart
titles are read as text and shown as option text).
"""

from __future__ import annotations

import streamlit as st

from ui.shell import session

SCALE = 3  # PNG pixels per CSS pixel: a full-width chart becomes ~2400 px wide

_HTML = """
<div class="figures">
  <label>Figure for slides <select aria-label="Figure for slides"></select></label>
  <button type="button" data-kind="svg">SVG</button>
  <button type="button" data-kind="png">PNG ×3</button>
  <span class="note" role="status"></span>
</div>
"""

_CSS = """
.figures { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem; font-family: inherit;
           font-size: .9rem; color: var(--st-text-color, inherit); }
.figures select { max-width: 28rem; font: inherit; padding: .2rem; }
.figures button { font: inherit; padding: .2rem .8rem; border-radius: .4rem; cursor: pointer;
                  border: 1px solid rgba(128, 128, 128, .5); background: transparent; color: inherit; }
.figures button:disabled { opacity: .45; cursor: not-allowed; }
.figures .note { opacity: .75; }
"""

_JS = """
export default function (component) {
  const { parentElement, data } = component;
  const root = parentElement.querySelector('.figures');
  if (!root || root.dataset.ready) return;
  root.dataset.ready = '1';
  const scale = (data && data.scale) || 3;
  const slug = (data && data.slug) || 'chart';
  const select = root.querySelector('select');
  const note = root.querySelector('.note');
  const main = document.querySelector("[data-testid='stMain']") || document.body;
  // The page's Vega-Lite charts, then its attention maps (the attention-map component: an open shadow root whose
  // .amap has its own Save SVG / Save PNG ×3 buttons, which this panel presses for a map).
  const amaps = () => [...main.querySelectorAll('*')].filter((e) => e.shadowRoot)
    .flatMap((e) => [...e.shadowRoot.querySelectorAll('.amap')]).filter((a) => a.querySelector('.export button'));
  const charts = () => [...main.querySelectorAll("[data-testid='stVegaLiteChart']"), ...amaps()];
  const isMap = (chart) => !!(chart && chart.classList && chart.classList.contains('amap'));
  const title = (chart, i) => {
    if (isMap(chart)) {
      const head = chart.querySelector('.gridhead .title');
      const names = [...chart.querySelectorAll('.map .title')].map((t) => t.textContent.trim()).filter(Boolean);
      return (head && head.textContent.trim()) || names.join(' · ') || `map ${i + 1}`;
    }
    const t = chart.querySelector('g.role-title-text text');
    if (t && t.textContent.trim()) return t.textContent.trim();
    // an untitled chart is named by its axes ("loss by step"), then by its number
    const axes = [...chart.querySelectorAll('g.role-axis-title text')].map(a => a.textContent.trim()).filter(Boolean);
    return axes.length ? axes.reverse().join(' by ') : `chart ${i + 1}`;
  };
  const refresh = () => {
    const list = charts();
    const keep = select.value;
    const kind = (c) => isMap(c) ? '' : !c.querySelector('svg.marks') ? ' (canvas)'
      : c.querySelector('svg.marks image') ? ' (cells as PNG)' : '';
    const names = list.map((c, i) => `${i + 1} · ${title(c, i)}` + kind(c));
    if (names.join('\\n') === [...select.options].map(o => o.textContent).join('\\n')) return;
    select.replaceChildren(...names.map((name, i) => {
      const option = document.createElement('option');
      option.value = String(i);
      option.textContent = name;          // text, never markup
      return option;
    }));
    if (keep && Number(keep) < list.length) select.value = keep;
    update();
  };
  const picked = () => charts()[Number(select.value)];
  const update = () => {
    const chart = picked();
    const svg = !!(chart && (isMap(chart) || chart.querySelector('svg.marks')));
    root.querySelectorAll('button').forEach(b => { b.disabled = !svg; });
    const painted = svg && !isMap(chart) && !!chart.querySelector('svg.marks image');
    note.textContent = !chart ? '' : painted ?
      'its cells are one PNG picture inside the SVG (cells under 5 px): axes and text scale, the cells do not' :
      svg ? '' : 'drawn on a canvas (a large map): its own menu (⋯) saves it as PNG; SVG only for smaller maps';
  };
  const fileName = (ext) => {
    const i = Number(select.value);
    const name = title(picked(), i).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60);
    return `attention-lab-${slug}-${i + 1}-${name || 'chart'}.${ext}`;
  };
  const save = (blob, name) => {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
  };
  const svgText = (svg) => {
    const copy = svg.cloneNode(true);
    copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
    copy.setAttribute('xmlns:xlink', 'http://www.w3.org/1999/xlink');
    const style = getComputedStyle(svg);
    copy.setAttribute('style', `font-family: ${style.fontFamily}`);
    // Vega points gradients at the page's own URL (url(http://…/page#gradient_0)): a saved file needs url(#…).
    const text = new XMLSerializer().serializeToString(copy).replace(/url\\((['"]?)[^)'"#]*#/g, 'url($1#');
    return '<?xml version="1.0" encoding="utf-8"?>\\n' + text;
  };
  const background = () => {
    const app = document.querySelector("[data-testid='stApp']") || document.body;
    const colour = getComputedStyle(app).backgroundColor;
    return colour && colour !== 'rgba(0, 0, 0, 0)' ? colour : '#ffffff';
  };
  const byMap = (kind) => {
    // a map saves itself (its figure built from its numbers); its own status line says what was saved
    const button = picked().querySelector(`.export button[data-kind='${kind}']`);
    button.click();
    note.textContent = `${kind.toUpperCase()} saved by the map's own export`;
  };
  root.querySelector("[data-kind='svg']").addEventListener('click', () => {
    if (isMap(picked())) return byMap('svg');
    const svg = picked().querySelector('svg.marks');
    save(new Blob([svgText(svg)], { type: 'image/svg+xml' }), fileName('svg'));
    note.textContent = 'SVG saved';
  });
  root.querySelector("[data-kind='png']").addEventListener('click', () => {
    if (isMap(picked())) return byMap('png');
    const svg = picked().querySelector('svg.marks');
    const width = Number(svg.getAttribute('width')) || svg.getBoundingClientRect().width;
    const height = Number(svg.getAttribute('height')) || svg.getBoundingClientRect().height;
    const image = new Image();
    const url = URL.createObjectURL(new Blob([svgText(svg)], { type: 'image/svg+xml' }));
    image.onload = () => {
      const canvas = document.createElement('canvas');
      canvas.width = Math.round(width * scale);
      canvas.height = Math.round(height * scale);
      const ctx = canvas.getContext('2d');
      ctx.fillStyle = background();
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      ctx.drawImage(image, 0, 0, canvas.width, canvas.height);
      URL.revokeObjectURL(url);
      canvas.toBlob((blob) => {
        save(blob, fileName('png'));
        note.textContent = `PNG saved (${canvas.width} × ${canvas.height} px)`;
      }, 'image/png');
    };
    image.onerror = () => { note.textContent = 'this chart could not be drawn as PNG here; use its own menu (⋯)'; };
    image.src = url;
  });
  select.addEventListener('change', update);
  select.addEventListener('focus', refresh); // maps draw inside their own shadow roots, unseen by the observer
  select.addEventListener('pointerdown', refresh);
  let pending = 0;
  const observer = new MutationObserver(() => {
    clearTimeout(pending);
    pending = setTimeout(refresh, 200);
  });
  observer.observe(main, { childList: true, subtree: true });
  refresh();
  return () => { observer.disconnect(); clearTimeout(pending); };
}
"""

_panel = st.components.v2.component("attention_lab_figures", html=_HTML, css=_CSS, js=_JS)


def panel(slug: str) -> None:
    """The page's 'figure for slides' row: pick a chart, save it as SVG or as PNG at SCALE×."""
    _panel(key=session.download_key("figures", slug), data={"scale": SCALE, "slug": slug})
    st.caption(
        "Any chart or attention map of this page: SVG or PNG at 3× its size. An SVG is vector (it scales on a "
        "slide). A map is saved by its own Save SVG and Save PNG ×3 buttons, under it, from its numbers; each "
        "other chart's own menu (⋯ on hover) also saves a PNG at 2× and shows it full screen."
    )
