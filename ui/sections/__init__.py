"""Each page's Streamlit parts, one folder per page (pages/<path>.py draws its header, then calls them):
the widgets, keys and state a page owns live in its folder. cell/ is the worked weight that the scores
and softmax pages share."""
