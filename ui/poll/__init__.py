"""The class poll: a store shared by every replica, its questions, and the presenter and student views."""
