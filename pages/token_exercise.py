import streamlit as st

st.title("token_exercise")
st.info("Coming soon.")
