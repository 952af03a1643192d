"""The 12-week momentum histogram as a PNG image, like the momentum chart of a topic page.

One bar per week, oldest first; the last four weeks (the window the momentum line counts) are
highlighted. The count stands above each bar, or above the tallest one when the numbers do not
fit; the first week is labelled "Jul 13" and the last "Week of Sep 28". Text uses Pillow's
bundled default font, so drawing needs no font files, and the same input gives the same bytes.
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from digests.messages.chart_spec import chart_panels
from digests.messages.digest import shorten
from digests.messages.layout import clean_text
from digests.signals.momentum import MONTHS, WEEK_DAYS, WINDOW_DAYS, WeekCount

BACKGROUND = (255, 255, 255)
TITLE_COLOR = (31, 35, 40)
MUTED_TEXT = (101, 109, 118)
BAR_COLOR = (200, 206, 214)  # earlier weeks
HIGHLIGHT = (47, 111, 235)  # the last four weeks
HIGHLIGHT_TEXT = (29, 78, 186)
AXIS_COLOR = (175, 184, 193)
HIGHLIGHT_WEEKS = WINDOW_DAYS // WEEK_DAYS
MIN_SIZE = (200, 120)
MAX_SIZE = (4000, 4000)
PANEL_SIZE = (800, 300)  # each topic's histogram in a chart of several
TITLE_LIMIT = 300  # characters kept before fitting the title to the width
LEGEND = "last four weeks"

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont
Color = tuple[int, int, int]
Point = tuple[int, int]
Box = tuple[int, int, int, int]  # left, top, right, bottom; inclusive


@dataclass(frozen=True)
class _Layout:
    width: int
    height: int
    pad: int
    title_size: int
    label_size: int
    plot_top: int  # the tallest bar reaches this row
    baseline: int  # the axis row; bars stand on it
    label_top: int

    @classmethod
    def for_size(cls, width: int, height: int) -> _Layout:
        unit = min(width / 800, height / 360)
        pad = max(8, round(20 * unit))
        title_size, label_size = max(11, round(22 * unit)), max(9, round(14 * unit))
        label_h = _line_height(_font(label_size))
        label_top = height - pad - label_h
        plot_top = pad + _line_height(_font(title_size)) + max(4, round(14 * unit)) + label_h
        baseline = label_top - max(3, round(8 * unit))
        return cls(width, height, pad, title_size, label_size, plot_top, baseline, label_top)

    @property
    def title_font(self) -> Font:
        return _font(self.title_size)

    @property
    def label_font(self) -> Font:
        return _font(self.label_size)


def histogram_png(
    weekly: Sequence[WeekCount], *, title: str, width: int = 800, height: int = 360
) -> bytes:
    """The weekly counts as a bar chart, PNG-encoded."""
    return _png(_histogram_image(weekly, title, width, height))


def chart_png(spec: Mapping) -> bytes:
    """A stored chart description (`digests.messages.chart_spec`) drawn: one histogram per panel,
    stacked. The same description gives the same bytes; recent ones are kept in memory, since
    many channels follow the same topics. ValueError when `spec` is not a chart."""
    return _chart_png(json.dumps(spec, sort_keys=True, ensure_ascii=False))


@lru_cache(maxsize=256)
def _chart_png(canonical: str) -> bytes:
    panels = chart_panels(json.loads(canonical))
    if len(panels) == 1:
        ((title, weekly),) = panels
        return histogram_png(weekly, title=title)
    images = [_histogram_image(weekly, title, *PANEL_SIZE) for title, weekly in panels]
    stacked = Image.new("RGB", (PANEL_SIZE[0], PANEL_SIZE[1] * len(images)), BACKGROUND)
    for index, image in enumerate(images):
        stacked.paste(image, (0, index * PANEL_SIZE[1]))
    return _png(stacked)


def _png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    # Drawn as each part is sent: the fastest zlib level halves encoding for 20% more bytes.
    image.save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue()


def _histogram_image(
    weekly: Sequence[WeekCount], title: str, width: int, height: int
) -> Image.Image:
    if not (MIN_SIZE[0] <= width <= MAX_SIZE[0] and MIN_SIZE[1] <= height <= MAX_SIZE[1]):
        raise ValueError(f"chart size must lie between {MIN_SIZE} and {MAX_SIZE} pixels")
    layout = _Layout.for_size(width, height)
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    legend_left = _draw_legend(draw, layout)
    title_width = legend_left - layout.pad - layout.pad
    cleaned = clean_text(title[: TITLE_LIMIT * 4], TITLE_LIMIT)
    title_text = fit_text(cleaned, title_width, size=layout.title_size)
    draw.text((layout.pad, layout.pad), title_text, font=layout.title_font, fill=TITLE_COLOR)
    draw.line(
        [(layout.pad, layout.baseline), (width - layout.pad - 1, layout.baseline)],
        fill=AXIS_COLOR,
        width=1,
    )
    boxes = _bar_boxes(weekly, layout)
    if any(week.count for week in weekly):
        _draw_bars(draw, weekly, boxes, layout)
    else:
        message = "No papers in these weeks" if weekly else "No data"
        middle = (layout.plot_top + layout.baseline) // 2
        _text_centered(draw, message, (width // 2, middle), layout, MUTED_TEXT)
    _draw_week_labels(draw, weekly, boxes, layout)
    return image


def fit_text(text: str, max_width: int, *, size: int) -> str:
    """`text` cut at a word boundary ("…") until it fits `max_width` pixels at a font size."""
    font = _font(size)
    if font.getlength(text) <= max_width:
        return text
    low, high = 0, len(text)  # shorten(text, low) fits; shorten(text, high) does not
    while high - low > 1:
        middle = (low + high) // 2
        if font.getlength(shorten(text, middle)) <= max_width:
            low = middle
        else:
            high = middle
    return shorten(text, low) if low else ""


def week_label(week: WeekCount, *, last: bool = False) -> str:
    """The label of a week starting on July 13: "Jul 13", or "Week of Jul 13" for the last."""
    day = f"{MONTHS[week.start.month - 1]} {week.start.day}"
    return f"Week of {day}" if last else day


def _bar_boxes(weekly: Sequence[WeekCount], layout: _Layout) -> list[Box]:
    """(left, top, right, bottom) of each bar, inclusive; a zero week has top below bottom."""
    if not weekly:
        return []
    left, right = layout.pad, layout.width - layout.pad
    slot = (right - left) / len(weekly)
    bar_width = max(1, round(slot * 0.72))
    tallest = max(week.count for week in weekly)
    plot_height = layout.baseline - layout.plot_top
    boxes = []
    for index, week in enumerate(weekly):
        x0 = left + round(index * slot + (slot - bar_width) / 2)
        bar_height = _scaled(week.count, tallest, plot_height)
        boxes.append((x0, layout.baseline - bar_height, x0 + bar_width - 1, layout.baseline - 1))
    return boxes


def _draw_bars(
    draw: ImageDraw.ImageDraw, weekly: Sequence[WeekCount], boxes: list[Box], layout: _Layout
) -> None:
    first_highlighted = len(weekly) - HIGHLIGHT_WEEKS
    labels = [f"{week.count:,}" for week in weekly]
    slot = (layout.width - 2 * layout.pad) / len(weekly)
    fits = all(layout.label_font.getlength(label) <= slot - 2 for label in labels)
    tallest = max(range(len(weekly)), key=lambda i: (weekly[i].count, i))
    for index, (week, box) in enumerate(zip(weekly, boxes, strict=True)):
        highlighted = index >= first_highlighted
        if week.count:
            draw.rectangle(box, fill=HIGHLIGHT if highlighted else BAR_COLOR)
        if fits or index == tallest:
            color = HIGHLIGHT_TEXT if highlighted else MUTED_TEXT
            center = (box[0] + box[2] + 1) // 2
            _text_centered(draw, labels[index], (center, box[1] - 5), layout, color)


def _draw_week_labels(
    draw: ImageDraw.ImageDraw, weekly: Sequence[WeekCount], boxes: list[Box], layout: _Layout
) -> None:
    if not weekly:
        return
    font = layout.label_font
    last = week_label(weekly[-1], last=True)
    last_left = boxes[-1][2] + 1 - round(font.getlength(last))
    draw.text((last_left, layout.label_top), last, font=font, fill=MUTED_TEXT)
    first = week_label(weekly[0])
    if len(weekly) > 1 and boxes[0][0] + font.getlength(first) + 12 < last_left:
        draw.text((boxes[0][0], layout.label_top), first, font=font, fill=MUTED_TEXT)


def _draw_legend(draw: ImageDraw.ImageDraw, layout: _Layout) -> int:
    """A highlight swatch and "last four weeks" at the top right; returns its left edge."""
    font = layout.label_font
    swatch = max(6, _line_height(font) * 2 // 3)
    text_left = layout.width - layout.pad - round(font.getlength(LEGEND))
    swatch_left = text_left - swatch - max(4, swatch // 2)
    row_middle = layout.pad + _line_height(layout.title_font) // 2
    top = row_middle - swatch // 2
    draw.rectangle((swatch_left, top, swatch_left + swatch - 1, top + swatch - 1), fill=HIGHLIGHT)
    text_top = row_middle - _line_height(font) // 2
    draw.text((text_left, text_top), LEGEND, font=font, fill=MUTED_TEXT)
    return swatch_left


def _text_centered(
    draw: ImageDraw.ImageDraw, text: str, bottom_center: Point, layout: _Layout, color: Color
) -> None:
    """`text` in the label font, centred on x, its ink ending just above y."""
    font = layout.label_font
    left, _, right, bottom = draw.textbbox((0, 0), text, font=font)
    x = bottom_center[0] - (right - left) // 2 - left
    draw.text((x, bottom_center[1] - bottom), text, font=font, fill=color)


def _scaled(count: int, tallest: int, plot_height: int) -> int:
    """Bar height in pixels, rounded half up; any non-zero week shows at least 2 pixels."""
    if count <= 0 or tallest <= 0:
        return 0
    return max(2, (2 * count * plot_height + tallest) // (2 * tallest))


def _line_height(font: Font) -> int:
    return font.getbbox("Ag")[3]


@lru_cache(maxsize=8)
def _font(size: int) -> Font:
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError, ImportError):  # Pillow < 10.1, or built without FreeType
        return ImageFont.load_default()
