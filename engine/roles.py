"""The one rule that names a head for a role (issue 50): a label only where the evidence holds up. A head's
Controls gather what the rule reads (its score's interval, its untrained copy's score, its score off the held-out
sample, its knock-outs' effects with intervals), and role_label reads them, in the order RULE states them."""

from __future__ import annotations

from dataclasses import dataclass

ROLE_THRESHOLD = 0.5  # today's threshold (engine.evidence.strongest's default)
OVER_UNTRAINED = 0.2  # the score must beat the untrained copy's by this much
TRANSFER_SHARE = 0.8  # the transfer score must be at least this share of the held-out score

RULE = (
    "A head is named for a role only when the lower end of its score's 95 % interval is at or above "
    f"{ROLE_THRESHOLD}, its score beats the same head's score at its initial weights by at least {OVER_UNTRAINED}, "
    f"it keeps at least {TRANSFER_SHARE:.0%} of its score on text or sequences it never saw, and replacing its "
    "output by its mean (mean ablation) surely raises the role's loss: the whole 95 % interval of that rise lies "
    "above zero. Where two heads share a role and one knock-out changes little, both are knocked out together."
)
CHECKS = ("interval", "untrained", "transfer", "mean ablation")  # the rule's checks, in order


@dataclass(frozen=True)
class Effect:
    """What a knock-out costs: the mean rise of the role's loss over the sample's units, and its 95 % interval."""

    mean: float
    lo: float
    hi: float

    @property
    def above_zero(self) -> bool:
        """The whole interval lies above zero: the knock-out surely hurts."""
        return self.lo > 0


@dataclass(frozen=True)
class Controls:
    """One head's role and what checks it."""

    role: str  # the head's strongest role (engine.evidence.strongest's name)
    score: float  # its share of attention on the role's keys, on the held-out sample
    lo: float  # the score's 95 % bootstrap interval over the sample's units
    hi: float
    untrained: float  # the same head's score with the same config's untrained weights
    transfer: float  # its score on the transfer sample (off the held-out sample's distribution)
    zero: Effect  # the role's loss rise with the head's output zeroed ...
    mean: Effect  # ... replaced by its mean over the sample ...
    resample: Effect  # ... taken from another unit of the sample
    layer_others: tuple[float, ...] = ()  # the scores of its layer's other heads for the role
    shuffled: float | None = None  # its score on the held-out windows with their word order shuffled (text)
    partner: tuple[int, int] | None = None  # a head sharing the role, where there is one ...
    together: Effect | None = None  # ... and the mean-ablation effect of knocking out both
    weakest: int | None = None  # the unit where it follows its role least (a counter-example)
    transfer_words: str = "training-like text"  # what the held-out sample is, for "… on … only"


@dataclass(frozen=True)
class Label:
    """What the pages call a head: a role (name) or none, the check that failed, and why in plain words."""

    name: str | None  # the role it is named for, None where a check failed
    failed: str | None  # the first failing check of CHECKS, None when named
    reason: str  # one sentence
    together: tuple[int, int] | None = None  # named with this head, judged by knocking out both


def role_label(controls: Controls, threshold: float = ROLE_THRESHOLD) -> Label:
    """The rule (RULE), in order: a head whose score's interval reaches below threshold has no clear role; one its
    untrained copy nearly matches, none it learned; one that loses its score off the held-out sample holds it on
    that sample only; one whose mean knock-out does not surely hurt (nor its pair's together) does not use it."""
    c, role = controls, controls.role
    if c.lo < threshold:
        return Label(
            None,
            "interval",
            f"no clear role: its {role} score's interval reaches down to {c.lo:.3g}, below {threshold}",
        )
    if c.score - c.untrained < OVER_UNTRAINED:
        return Label(
            None,
            "untrained",
            f"no clear role: at its initial weights it scores {c.untrained:.3g} as {role}, within {OVER_UNTRAINED} of "
            f"its {c.score:.3g}",
        )
    if c.transfer < TRANSFER_SHARE * c.score:
        return Label(
            None,
            "transfer",
            f"{role} on {c.transfer_words} only: {c.transfer:.3g} off it, under {TRANSFER_SHARE:.0%} of {c.score:.3g}",
        )
    if c.mean.above_zero:
        return Label(role, None, f"{role}: every check holds (mean knock-out +{c.mean.mean:.3f})")
    if c.partner is not None and c.together is not None and c.together.above_zero:
        return Label(
            role,
            None,
            f"{role}, with layer {c.partner[0]} head {c.partner[1]}: knocking out both raises the loss "
            f"+{c.together.mean:.3f}",
            together=c.partner,
        )
    zero_only = " (its zero knock-out hurts: it feeds the next layer values it never saw)" if c.zero.above_zero else ""
    return Label(
        None,
        "mean ablation",
        f"{role} in its attention, but the model does not need it: replacing its output by its mean does not "
        f"surely raise the {role} loss ({c.mean.lo:+.3f} to {c.mean.hi:+.3f}){zero_only}",
    )
