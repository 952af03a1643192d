"""The momentum histogram PNG: a valid image, bars to scale, labels, and hostile input."""

from __future__ import annotations

import io
import json
from datetime import date, timedelta

import pytest
from PIL import Image

from digests.messages.chart import (
    AXIS_COLOR,
    BACKGROUND,
    BAR_COLOR,
    HIGHLIGHT,
    PANEL_SIZE,
    chart_png,
    fit_text,
    histogram_png,
    week_label,
)
from digests.messages.chart_spec import MAX_PANELS, chart_panels, digest_chart
from digests.messages.digest import Digest, TopicRef, compose_digest
from digests.signals.momentum import WeekCount, compute_momentum

FIRST_WEEK = date(2026, 7, 13)
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def weeks(counts) -> list[WeekCount]:
    starts = [FIRST_WEEK + timedelta(days=7 * i) for i in range(len(counts))]
    return [WeekCount(s, s + timedelta(days=6), c) for s, c in zip(starts, counts, strict=True)]


def render(counts, title="RL for LLM Agents", **size) -> Image.Image:
    data = histogram_png(weeks(counts), title=title, **size)
    assert data.startswith(PNG_SIGNATURE)
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def axis_row(image: Image.Image) -> int:
    """The row with the most axis-coloured pixels: the baseline the bars stand on."""
    width, height = image.size
    pixels = image.load()
    return max(range(height), key=lambda y: sum(pixels[x, y] == AXIS_COLOR for x in range(width)))


def bars(image: Image.Image) -> list[tuple[int, tuple[int, int, int]]]:
    """(height, colour) of each bar, left to right, measured up from the baseline."""
    return [(height, colour) for _, _, height, colour in bar_spans(image)]


def bar_spans(image: Image.Image) -> list[tuple[int, int, int, tuple[int, int, int]]]:
    """(left, right, height, colour) of each bar, left to right."""
    width, _ = image.size
    pixels = image.load()
    baseline = axis_row(image)
    found: list[list] = []
    previous_height = 0
    for x in range(width):
        colour = pixels[x, baseline - 1]
        height = 0
        if colour in (BAR_COLOR, HIGHLIGHT):
            while pixels[x, baseline - 1 - height] == colour:
                height += 1
        if height and not previous_height:
            found.append([x, x, height, colour])
        elif height:
            found[-1][1] = x
        previous_height = height
    return [tuple(span) for span in found]


def has_ink_above(image: Image.Image, span, gap: int = 25) -> bool:
    """Whether anything is drawn in the `gap` rows above a bar (its count label)."""
    left, right, height, _ = span
    top = axis_row(image) - height
    pixels = image.load()
    return any(
        pixels[x, y] != BACKGROUND for x in range(left, right + 1) for y in range(top - gap, top)
    )


def test_the_chart_is_a_png_of_the_asked_size():
    image = render([6, 8, 5, 7, 9, 6, 8, 7, 12, 15, 19, 24])
    assert (image.format, image.size, image.mode) == ("PNG", (800, 360), "RGB")
    small = render([1] * 12, width=320, height=150)
    assert small.size == (320, 150)


def test_the_same_input_gives_the_same_bytes():
    first = histogram_png(weeks([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8]), title="Pi")
    assert first == histogram_png(weeks([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8]), title="Pi")
    assert first != histogram_png(weeks([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 9]), title="Pi")


def test_bar_heights_are_proportional_and_the_last_four_weeks_highlighted():
    counts = [5 * (i + 1) for i in range(12)]  # 5, 10, ..., 60
    found = bars(render(counts))
    assert len(found) == 12
    tallest = found[-1][0]
    assert tallest > 150
    for count, (height, _) in zip(counts, found, strict=True):
        assert height == pytest.approx(tallest * count / 60, abs=1)
    assert [colour for _, colour in found] == [BAR_COLOR] * 8 + [HIGHLIGHT] * 4


def test_a_zero_week_has_no_bar_and_a_tiny_week_still_shows():
    found = bars(render([1000, 0, 1, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000]))
    assert len(found) == 11
    assert found[1][0] == 2  # 1 of 1,000 would round to nothing


def test_a_histogram_of_zeros_or_no_weeks_draws_no_bars():
    for counts in ([0] * 12, [], [0]):
        image = render(counts)
        assert bars(image) == []
        assert image.size == (800, 360)


def test_counts_stand_above_each_bar_or_only_the_tallest_when_they_do_not_fit():
    image = render([6, 8, 5, 7, 9, 6, 8, 7, 12, 15, 19, 24])
    spans = bar_spans(image)
    assert len(spans) == 12
    assert all(has_ink_above(image, span) for span in spans)
    crowded = render([1_234_567] * 11 + [9_876_543], width=200, height=120)
    spans = bar_spans(crowded)
    assert len(spans) == 12
    assert [has_ink_above(crowded, span, gap=12) for span in spans] == [False] * 11 + [True]


@pytest.mark.parametrize(
    "title",
    [
        "",
        "\x1b[31mred\x1b[0m \u202eevil\u202c \x00\x07 <b>@everyone</b>",
        "🚀" * 500,
        "An extremely long topic name " * 2_000,
        "\n\n\t",
    ],
)
def test_hostile_and_long_titles_are_cut_and_do_not_crash(title):
    assert render([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], title=title).size == (800, 360)


def test_fit_text_cuts_at_a_word_boundary_to_the_width():
    text = "Reinforcement learning for large language model agents " * 5
    fitted = fit_text(text, 300, size=22)
    assert fitted.endswith("…") and text.startswith(fitted[:-1])
    assert fit_text(fitted, 300, size=22) == fitted
    assert fit_text("Short", 300, size=22) == "Short"
    assert fit_text("Unbreakable" * 10, 1, size=22) == ""


def test_week_labels_match_the_topic_page():
    first, last = weeks([0] * 12)[0], weeks([0] * 12)[-1]
    assert week_label(first) == "Jul 13"
    assert week_label(last, last=True) == "Week of Sep 28"


@pytest.mark.parametrize("size", [(100, 360), (800, 50), (5000, 360), (800, 0)])
def test_unreasonable_sizes_are_refused(size):
    with pytest.raises(ValueError):
        histogram_png(weeks([1] * 12), title="x", width=size[0], height=size[1])


# --- charts stored with delivery parts ----------------------------------------------------------


def topic_digest(*names: str) -> Digest:
    topics = [TopicRef(name.lower(), name) for name in names]
    day = FIRST_WEEK + timedelta(days=83)
    momenta = {
        topic.slug: compute_momentum(
            topic.name, {day - timedelta(days=n): n for n in range(84)}, {day: 1000}, day
        )
        for topic in topics
    }
    return compose_digest(topics, [], momenta, day - timedelta(days=6), day)


def decoded(data: bytes) -> Image.Image:
    assert data.startswith(PNG_SIGNATURE)
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def test_a_digest_chart_stacks_one_histogram_per_followed_topic_in_follow_order():
    digest = topic_digest("Agentic RL", "LLM Reasoning", "Evaluation")
    spec = digest_chart(digest)
    assert [title for title, _ in chart_panels(spec)] == [
        "Agentic RL · papers per week",
        "LLM Reasoning · papers per week",
        "Evaluation · papers per week",
    ]
    assert chart_panels(spec)[0][1] == digest.sections[0].momentum.weekly
    image = decoded(chart_png(spec))
    assert image.size == (PANEL_SIZE[0], 3 * PANEL_SIZE[1])
    panel = decoded(
        histogram_png(
            digest.sections[1].momentum.weekly,
            title="LLM Reasoning · papers per week",
            width=PANEL_SIZE[0],
            height=PANEL_SIZE[1],
        )
    )
    second = image.crop((0, PANEL_SIZE[1], PANEL_SIZE[0], 2 * PANEL_SIZE[1]))
    assert second.tobytes() == panel.tobytes()


def test_a_one_topic_chart_is_the_topic_page_chart_and_many_topics_show_the_first_four():
    single = digest_chart(topic_digest("Agentic RL"))
    assert decoded(chart_png(single)).size == (800, 360)
    many = digest_chart(topic_digest("A", "B", "C", "D", "E", "F"))
    assert len(chart_panels(many)) == MAX_PANELS == 4


def test_a_stored_chart_survives_json_and_draws_the_same_bytes():
    spec = digest_chart(topic_digest("Agentic RL", "Evaluation"))
    assert chart_png(json.loads(json.dumps(spec))) == chart_png(spec)


@pytest.mark.parametrize(
    "spec",
    [
        {},
        {"panels": []},
        {"panels": [{"title": "x"}]},
        {"panels": [{"title": "x", "weeks": [["not a date", 3]]}]},
        {"panels": [{"title": "x", "weeks": [["2026-07-13", -1]]}]},
        {"panels": [{"title": "x", "weeks": [["2026-07-13", "3"]]}]},
        {"panels": [{"title": "x", "weeks": [["2026-07-13", 3]]}] * 5},
        {"panels": [{"title": "x", "weeks": [["2026-07-13", 3]] * 53}]},
        {"panels": "<script>"},
    ],
)
def test_a_malformed_stored_chart_is_refused_with_a_value_error(spec):
    with pytest.raises(ValueError):
        chart_png(spec)
