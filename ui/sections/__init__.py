"""One home per page: ui/sections/<page>/ holds the page (page.py: its header, then its sections), its
sections, the words only it says (words*.py), its lesson facts (facts.py), its poll question (question.py) and
the keys only it uses; pages/<path>.py calls page.draw. cell/ is the worked weight that the scores and softmax
pages share."""
