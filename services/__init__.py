"""What serves the app but draws nothing: the trained weights at a setting (weights.py) and the
worker processes that train them (workers.py). Pure Python and NumPy: no Streamlit here."""
