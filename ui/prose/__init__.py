"""The words two or more pages share: sentences built from engine results, and the rules for what a
student may type, with the messages that say what to fix. Plain Python (no Streamlit), so every
sentence is tested directly at the settings where its truth turns. Words only one page says live in
that page's folder (ui/sections/<page>/words*.py)."""
