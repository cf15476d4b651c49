"""What serves the app but draws nothing: the trained weights at a setting (weights.py), the one queue whose
workers train them (jobs.py, jobrunner.py, learnruns.py) and the class poll's store (poll/). Pure Python and
NumPy: no Streamlit here."""
