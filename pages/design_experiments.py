import streamlit as st

st.title("design_experiments")
st.info("Coming soon.")
