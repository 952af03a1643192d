import re
from datetime import date, timedelta

import pytest

from digests.messages.digest import TopicRef, compose_digest
from digests.messages.plain_text import TITLE_LIMIT, clean_text, render_momentum, render_text
from digests.signals.momentum import HISTOGRAM_WEEKS, compute_momentum
from tests.papers import digest_paper

AS_OF = date(2026, 9, 27)
RL = TopicRef("agentic-rl", "Agentic RL")
EVALS = TopicRef("evals", "Evaluation")
# Anything a terminal could interpret: C0/C1 controls other than newline, DEL.
CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")


def render(papers, followed=(RL, EVALS), cap: int = 5, **options) -> str:
    counts = {AS_OF - timedelta(days=n): 3 for n in range(0, 84, 7)}  # 3 papers a week
    momenta = {t.slug: compute_momentum(t.name, counts, {AS_OF: 1_000}, AS_OF) for t in followed}
    period_start = AS_OF - timedelta(days=6)
    digest = compose_digest(followed, papers, momenta, period_start, AS_OF, cap)
    return render_text(digest, **options)


def paper_title_line(text: str) -> str:
    [line] = [line for line in text.splitlines() if line.startswith("1. ")]
    return line


def test_digest_shows_period_topics_momentum_and_papers():
    papers = [
        digest_paper(
            1,
            title="Self-Play Agents",
            authors=("Ada One", "Bo Two", "Cy Three", "Di Four"),
            published=AS_OF,
            primary_category="cs.LG",
            abstract="We train agents with self-play. More follows.",
            scores={RL.slug: 0.9, EVALS.slug: 0.2},
        ),
        digest_paper(2, title="Second Paper", scores={RL.slug: 0.8}),
    ]
    text = render(papers, title="Weekly digest")
    lines = text.splitlines()
    assert lines[0] == "Weekly digest"
    assert lines[1].startswith("Sep 21 – Sep 27, 2026")
    assert "## Agentic RL" in lines
    momentum = "12 papers in the last four weeks, unchanged on the four weeks before."
    assert f"{momentum} 1.2% of all new papers." in lines
    assert "1. Self-Play Agents" in lines
    assert "   https://arxiv.org/abs/2609.00001" in lines  # the link on its own line
    assert "   Ada One, Bo Two, Cy Three et al. · Sep 27, 2026 · cs.LG" in lines
    assert "   also in: Evaluation" in lines
    assert "   We train agents with self-play. More follows." in lines
    assert "2. Second Paper" in lines


def test_topic_without_papers_says_so_in_one_line():
    lines = render([digest_paper(1, scores={RL.slug: 0.5})]).splitlines()
    evals = lines[lines.index("## Evaluation") :]
    assert "No new papers in this period." in evals
    assert not any(line.startswith("1. ") for line in evals)


def test_capped_topic_ends_with_how_many_more():
    papers = [digest_paper(i, scores={RL.slug: i / 10}) for i in range(1, 5)]
    text = render(papers, cap=2)
    assert "3. " not in text
    assert text.splitlines()[text.splitlines().index("## Evaluation") - 2] == "   +2 more"


def test_histogram_option_adds_twelve_weekly_bars_per_topic():
    paper = digest_paper(1, scores={RL.slug: 0.5})
    plain = render([paper])
    with_histogram = render([paper], histogram=True)
    bar_lines = [line for line in with_histogram.splitlines() if re.match(r"   \w{3} \d\d ", line)]
    assert len(bar_lines) == 2 * HISTOGRAM_WEEKS
    assert not any(re.match(r"   \w{3} \d\d ", line) for line in plain.splitlines())


def test_render_momentum_shows_line_and_histogram():
    counts = {AS_OF: 7, AS_OF - timedelta(days=30): 2}
    m = compute_momentum("Agentic RL", counts, {AS_OF: 700}, AS_OF)
    lines = render_momentum(m).splitlines()
    assert lines[0] == "Agentic RL"
    assert lines[1] == m.line
    assert len([line for line in lines if re.match(r"\w{3} \d\d ", line)]) == HISTOGRAM_WEEKS
    assert lines[-1].startswith("Sep 21 ") and lines[-1].endswith(" 7")


HOSTILE_TITLES = {
    "script": "<script>alert(1)</script> & &amp; results",
    "mention": "@everyone @here free GPUs",
    "latex": "Bounds for $\\pi$-stable $O(\\sqrt{n})$ policies",
    "emoji": "Agents 🤖 that learn 👨‍👩‍👧 together",
}


@pytest.mark.parametrize("title", HOSTILE_TITLES.values(), ids=HOSTILE_TITLES.keys())
def test_markup_mentions_latex_and_emoji_are_shown_literally(title: str):
    paper = digest_paper(1, title=title, scores={RL.slug: 0.5})
    assert paper_title_line(render([paper])) == f"1. {title}"


def test_ansi_escapes_and_newlines_in_a_title_cannot_drive_the_terminal():
    title = "\x1b[31mRed\x1b[0m title\nwith\r\nbreaks\x07 and \x1b]0;pwned\x07 a window title"
    text = render([digest_paper(1, title=title, scores={RL.slug: 0.5})])
    assert paper_title_line(text) == "1. Red title with breaks and a window title"
    assert not CONTROL.search(text)


def test_ten_kilobyte_title_is_cut_to_one_bounded_line():
    title = "Scaling " + "very " * 2_000 + "far"
    line = paper_title_line(render([digest_paper(1, title=title, scores={RL.slug: 0.5})]))
    assert len(line) <= len("1. ") + TITLE_LIMIT
    assert line.endswith("very…")


def test_hostile_author_abstract_and_topic_name_stay_on_their_lines():
    topic = TopicRef("agentic-rl", "Agentic\nRL \x1b[2J")
    hostile = digest_paper(
        1,
        authors=("Eve\n@everyone", "\x1b[1mBold\x1b[0m"),
        published=AS_OF,
        primary_category="cs.LG",
        abstract="First\x00 line\nsecond line with <b>tags</b>.",
        scores={RL.slug: 0.5},
    )
    lines = render([hostile], followed=(topic,)).splitlines()
    assert "## Agentic RL" in lines
    assert "   Eve @everyone, Bold · Sep 27, 2026 · cs.LG" in lines
    assert "   First line second line with <b>tags</b>." in lines


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("plain text", "plain text"),
        ("  spaced \n\n out\t text  ", "spaced out text"),
        ("\x1b[1;31mbold red\x1b[0m", "bold red"),
        ("bell\x07 and null\x00", "bell and null"),
        ("right-to-left \u202eevil\u202c", "right-to-left evil"),
        ("next\x85line and\u2028separator", "next line and separator"),
        ("&amp; <i>x</i> @everyone $\\alpha$ 🎉", "&amp; <i>x</i> @everyone $\\alpha$ 🎉"),
    ],
)
def test_clean_text_removes_only_what_a_terminal_would_act_on(raw: str, expected: str):
    assert clean_text(raw, 100) == expected


def test_clean_text_truncates_at_a_word_boundary():
    assert clean_text("one two three four", 12) == "one two…"
    assert clean_text("x" * 10_000, 50) == "x" * 49 + "…"
