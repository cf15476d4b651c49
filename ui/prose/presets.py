"""Facts about each preset a student needs next to its numbers: what the article divides by, where its
inputs come from, whose words the labels are. Pure Python; the sidebar shows them under the preset."""
from __future__ import annotations


def facts(preset: str, heads: int) -> str:
    """One caption of facts for this preset at this head count."""
    if preset == "day33":
        divide = ("Day 33 divides the scores by √d_model, which equals √d_head with its one head"
                  + ("." if heads == 1 else f"; with {heads} heads this app divides by √d_head, as "
                     "multi-head attention does, and the article's script has no such case."))
        return (f"{divide} One random stream: the weights' seed draws the embedding table first, so a new seed "
                "redraws X too. The article gives token ids only: the words for ids 0–9 are this app's labels.")
    if preset == "part4":
        return ("Part 4 writes √d_k: its d_k is d_head here. Its inputs X come from their own seed, 101, so the "
                "weights' seed does not move them.")
    return ""
