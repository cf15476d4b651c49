"""The words of a head's role with its controls (issue 50): what each control means in one line, the label the
one rule (engine.roles.role_label) gives, or the check that failed, in words, and the controls' numbers as a
table cell says them (every number through ui.prose.numbers.fmt). The model view, the per-head page, the
knock-out table and the lessons' facts all say a head's role through label()."""

from __future__ import annotations

from engine.controls import N_BOOT
from engine.role_checks import HeadRole
from engine.roles import OVER_UNTRAINED, ROLE_THRESHOLD, RULE, TRANSFER_SHARE, Effect
from ui.prose.numbers import fmt, names

SPEC = ".3f"  # a score, an interval's ends, a loss's rise
MEAN_WHY = (
    "The effect is judged on mean ablation because it removes only what the head says about this input: zeros "
    "feed the next layer values it never saw during training and overstate what the head does, and another "
    "unit's output (resample) also carries that unit's own information."
)
GLOSSES = {
    "head": "Which head: its layer and its number in the layer.",
    "role": "The pattern the head follows most: the keys it puts its weight on.",
    "score": "Its mean weight on the role's keys over the sample's queries (1: all its weight there).",
    "95 % interval": "Where the score would land 95 times in 100 on another sample like this one (bootstrap).",
    "initial weights": "The same head's score with the weights training started from: what chance and layout give.",
    "layer's other heads": "The same score for the other heads of its layer: is this head special?",
    "transfer": "Its score on sequences unlike the training ones (longer, or random tokens with a repeat).",
    "shuffled": "Its score on the same windows with their words shuffled: kept, the role is positional.",
    "zero knock-out": "The rise of the role's loss with the head's output replaced by zeros (95 % interval).",
    "mean knock-out": "The rise with its output replaced by its mean over the sample: the effect judged.",
    "resample knock-out": "The rise with its output taken from another unit of the sample (causal scrubbing).",
    "label": "The role the rule names it for, or the first check it fails.",
}
TABLE_CAPTION = "Every head with its controls. Hover over or focus a column's name for what it means."
HEAD_CAPTION = "The head's controls. Hover over or focus a control's name for what it means."
TASK_TRANSFER = (
    "A task's transfer sequences are a quarter longer than its training ones: every position past the training "
    "length is new to the model, while most of each sequence still sits where it trained."
)
SHORT = {  # a withheld label, in a few words, by the check that failed
    "interval": "no clear role",
    "untrained": "no learned role",
    "transfer": "only on training-like input",
    "mean ablation": "not needed",
}


def the(loss: str) -> str:
    """A loss's words with their article: 'the held-out next-token loss', 'the induction task's loss'."""
    return loss if loss.startswith("the ") else f"the {loss}"


def rule() -> str:
    """The rule, once, in plain words (engine.roles.RULE)."""
    return RULE


def who(layer: int, head: int, layers: int) -> str:
    """'layer 1 head 0', or 'head 0' in a model of one layer."""
    return f"layer {layer} head {head}" if layers > 1 else f"head {head}"


def interval(lo: float, hi: float, spec: str = SPEC) -> str:
    """'0.762 to 0.774'; 'both ends 1.000' where the two ends print the same."""
    low, high = fmt(lo, spec), fmt(hi, spec)
    return f"both ends {low}" if low == high else f"{low} to {high}"


def score(one: HeadRole) -> str:
    """'0.768 (0.762 to 0.774)': the score and its 95 % interval."""
    c = one.controls
    return f"{fmt(c.score, SPEC)} ({interval(c.lo, c.hi)})"


def effect(found: Effect | None) -> str:
    """'+1.818 (+1.621 to +2.016)': a knock-out's mean rise and its 95 % interval, '—' where none."""
    if found is None:
        return "—"
    return f"{fmt(found.mean, '+' + SPEC)} ({interval(found.lo, found.hi, '+' + SPEC)})"


def others(one: HeadRole) -> str:
    """The layer's other heads' scores for the role ('0.54, 0.11'), '—' for a layer of one head."""
    return ", ".join(fmt(x, SPEC) for x in one.controls.layer_others) or "—"


def training_only(one: HeadRole) -> str:
    """Where the role holds, for a label that failed the transfer check: 'on training-like text only'."""
    words = one.controls.transfer_words
    return "on training-like text only" if "text" in words else "at its training length only"


def label(one: HeadRole) -> str:
    """A head's label in a few words: its role where the rule names it ('induction (task keys)'; 'previous
    token, with layer 0 head 0' for a pair judged together), else what the failed check means ('previous token
    on training-like text only', 'no clear role (best: previous token)')."""
    found, role = one.label, one.controls.role
    if found.name is not None:
        if found.together is not None:
            return f"{found.name}, with {who(*found.together, 2)}"
        return found.name
    if found.failed == "transfer":
        return f"{role} {training_only(one)}"
    if found.failed == "mean ablation":
        return f"{role} in its weights, not needed"
    return f"{SHORT[found.failed]} (best: {role})"


def tag(one: HeadRole) -> str:
    """A map's label with its score, as the model view's maps and the lessons say it: 'previous token 0.77',
    'induction (repeated span) 0.62, on training-like text only', 'no clear role (best: previous token 0.39)'."""
    found, c = one.label, one.controls
    said = fmt(c.score, ".2f")
    if found.name is not None:
        return f"{found.name} {said}" + (f", with {who(*found.together, 2)}" if found.together is not None else "")
    if found.failed == "transfer":
        return f"{c.role} {said}, {training_only(one)}"
    if found.failed == "mean ablation":
        return f"{c.role} {said} in its weights, not needed"
    return f"{SHORT[found.failed]} (best: {c.role} {said})"


def why(one: HeadRole) -> str:
    """Why a head has its label, in one sentence: every check held, or the first that failed and by how much."""
    c, found, role = one.controls, one.label, one.controls.role
    if found.name is not None:
        if found.together is not None and not c.mean.above_zero:
            return (
                f"Named {role} together with {who(*found.together, 2)}: knocking out this head alone does not "
                f"surely raise the loss ({effect(c.mean)}), knocking out both does ({effect(c.together)})."
            )
        return f"Every check holds: its mean knock-out raises {the(one.loss)} by {effect(c.mean)}."
    if found.failed == "interval":
        return (
            f"Its {role} score's interval reaches down to {fmt(c.lo, SPEC)}, below the threshold of {ROLE_THRESHOLD}."
        )
    if found.failed == "untrained":
        return (
            f"At its initial weights (before training) it scores {fmt(c.untrained, SPEC)} as {role}, within "
            f"{OVER_UNTRAINED} of its {fmt(c.score, SPEC)}: training did not make it."
        )
    if found.failed == "transfer":
        return (
            f"On {one.transfer_sample} it scores {fmt(c.transfer, SPEC)}, under {TRANSFER_SHARE:.0%} of its "
            f"{fmt(c.score, SPEC)}: {role} {training_only(one)}."
        )
    zero = " (its zero knock-out hurts: zeros are values the next layer never saw)" if c.zero.above_zero else ""
    return (
        f"Replacing its output by its mean does not surely raise {the(one.loss)} ({effect(c.mean)}){zero}: the model "
        f"does not need its {role}."
    )


def samples(found: tuple[HeadRole, ...]) -> str:
    """What the controls were measured on, each distinct sample once: the held-out ones, the transfer ones, and
    the losses the knock-outs are judged on."""

    def once(items) -> list[str]:
        return list(dict.fromkeys(items))

    task = any(h.controls.shuffled is None for h in found)
    return (
        f"Scores and knock-outs on {names(once(h.sample for h in found))}; transfer on "
        f"{names(once(h.transfer_sample for h in found))}; each knock-out judged on "
        f"{names(once(h.loss for h in found))}; intervals: 95 %, bootstrap over the units ({N_BOOT:,} draws)."
    ) + (f" {TASK_TRANSFER}" if task else "")
