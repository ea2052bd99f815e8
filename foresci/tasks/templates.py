"""Question wording for each family. Templates only see pre-cutoff facts (names, counts up to the cutoff)."""

from __future__ import annotations

from datetime import date

COMMON_REQUIREMENTS = [
    "Use only literature announced on or before the cutoff date.",
    "Commit to a concrete conclusion; avoid vague trend language.",
    "Ground the conclusion in named pre-cutoff papers or signals.",
]

DELIVERABLES: dict[str, list[str]] = {
    "direction_forecasting": COMMON_REQUIREMENTS + [
        "Name exactly one candidate (by option id) as the direction that gains the most momentum.",
        "Give its trajectory label over the window: accelerating, fragmenting, steady or cooling.",
        "Say which other candidates, if any, are close runners-up.",
    ],
    "bottleneck_opportunity": COMMON_REQUIREMENTS + [
        "Identify one root technical bottleneck of the sub-direction.",
        "Name the one-hop opportunity that opens if the bottleneck is reduced.",
        "Explain the mechanism that links the two.",
    ],
    "strategic_planning": COMMON_REQUIREMENTS + [
        "Rank all options (by option id) from highest to lowest priority for the window.",
        "Give a rationale, milestones, dependencies, risks and a go/no-go criterion for the top option.",
    ],
    "venue_positioning": COMMON_REQUIREMENTS + [
        "Rank all venue families (by option id) from best to worst fit for the contribution.",
        "Explain the framing, the main reviewer risks and the evidence upgrades for the top venue family.",
    ],
}


def _when(cutoff: date, start: date, end: date) -> str:
    return (f"Using only literature announced on or before {cutoff.isoformat()}, consider the window "
            f"{start.isoformat()} to {end.isoformat()}.")


def momentum_measure(level_period: str) -> str:
    """How a direction task measures momentum, as its public context states it."""
    return (f"growth of the share of the domain's new papers, window vs. {level_period} (its level shrunk "
            "toward the domain's typical node)")


def direction_question(domain_name: str, cutoff: date, start: date, end: date) -> tuple[str, str]:
    """Title and question of a direction-forecasting task."""
    title = f"Which {domain_name} direction gains momentum after {cutoff.isoformat()}?"
    question = (f"{_when(cutoff, start, end)} Among the candidate research directions in {domain_name} "
                f"listed "
                "below, which one will gain the most momentum during the window, measured as growth of its "
                "share of the domain's new papers? Also state the trajectory that direction follows "
                "(accelerating, fragmenting into sub-directions, steady, or cooling).")
    return title, question


def bottleneck_question(domain_name: str, subdirection: str, cutoff: date, start: date,
                        end: date) -> tuple[str, str]:
    """Title and question of a bottleneck-opportunity task."""
    title = f"Root bottleneck and next opportunity in {subdirection}"
    question = (f"{_when(cutoff, start, end)} In the {domain_name} sub-direction '{subdirection}', identify "
                f"the "
                "one root technical bottleneck that pre-cutoff work keeps running into, and the one-hop "
                "research "
                "opportunity most likely to open during the window once that bottleneck is reduced. Explain "
                "the mechanism linking them.")
    return title, question


def planning_question(domain_name: str, scope: str, cutoff: date, start: date, end: date) -> tuple[str, str]:
    """Title and question of a strategic-planning task."""
    title = f"Prioritising research options in {scope}"
    question = (f"{_when(cutoff, start, end)} A research team working on {scope} ({domain_name}) can pursue "
                f"the "
                "options listed below during the window. Rank them from highest to lowest priority, where "
                "priority means the option whose line of work will most clearly gain ground in the window. "
                "Give the rationale, milestones, dependencies, risks and a go/no-go criterion for your top "
                "choice.")
    return title, question


def venue_question(domain_name: str, contribution: str, cutoff: date, start: date, end: date) -> tuple[str,
                                                                                                       str]:
    """Title and question of a venue-positioning task."""
    title = f"Positioning a contribution on {contribution} for the next venue cycle"
    question = (f"{_when(cutoff, start, end)} A team has a contribution in {domain_name} on "
                f"'{contribution}' and "
                "will submit during the next venue cycle. Rank the venue families listed below from best to "
                "worst "
                "fit for this contribution, and for the top choice explain the framing, the reviewer risks "
                "and "
                "the evidence upgrades that would make the submission credible.")
    return title, question
