"""Attention Lab: the frame. Page config, the shared sidebar, navigation; every page lives in pages/."""
import streamlit as st

from ui import presenter, sidebar

controls = sidebar.load()
st.set_page_config(
    page_title="Attention Lab",
    page_icon="assets/icon.png",           # a local file: no icon CDN
    layout="wide",
    initial_sidebar_state="collapsed" if controls.present else "expanded",
)

# url_path never equals a file name in pages/, so a deep link always runs this frame first.
PAGES = [
    st.Page("pages/input_vectors.py", title="Inputs X", icon=":material/input:", url_path="inputs",
            default=True),
    st.Page("pages/qkv_projections.py", title="Q, K, V projections", icon=":material/call_split:",
            url_path="qkv"),
    st.Page("pages/scaled_scores.py", title="Scaled scores", icon=":material/calculate:", url_path="scores"),
    st.Page("pages/softmax_weights.py", title="Softmax weights", icon=":material/percent:", url_path="softmax"),
    st.Page("pages/head_maps.py", title="Per-head maps", icon=":material/view_column:", url_path="heads"),
    st.Page("pages/block_output.py", title="Block output", icon=":material/output:", url_path="output"),
    st.Page("pages/token_exercise.py", title="Exercise: 5 → 6 tokens", icon=":material/add_box:",
            url_path="exercise"),
    st.Page("pages/design_experiments.py", title="Experiments: why?", icon=":material/science:",
            url_path="experiments"),
]

current = st.navigation(PAGES)
st.session_state["_view"] = sidebar.render()
presenter.frame(PAGES, current)
current.run()
