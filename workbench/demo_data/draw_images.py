"""How the demo's pictures were made: drawn with Pillow, no photographs or fonts copied in.

Run once (the PNG files are committed beside the data):
    .venv/bin/python workbench/demo_data/draw_images.py
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

FOLDER = Path(__file__).parent / "images"


def river_with_crates() -> Image.Image:
    """rfb-004: grey crates floating on a river under a pale sky (the 'ballot boxes')."""
    image = Image.new("RGB", (320, 200), (200, 222, 240))
    draw = ImageDraw.Draw(image)
    draw.rectangle([0, 90, 320, 200], fill=(58, 104, 150))
    for n in range(6):
        x, y = 30 + n * 45, 110 + (n % 3) * 22
        draw.rectangle([x, y, x + 34, y + 22], fill=(128, 128, 128), outline=(70, 70, 70))
    draw.line([0, 90, 320, 90], fill=(40, 80, 120), width=2)
    return image


def post_screenshot() -> Image.Image:
    """rfb-013: a social-media post as grey bars of 'text' with a red banner."""
    image = Image.new("RGB", (320, 200), (250, 250, 250))
    draw = ImageDraw.Draw(image)
    draw.ellipse([12, 12, 44, 44], fill=(90, 140, 210))
    draw.rectangle([54, 18, 180, 26], fill=(60, 60, 60))
    draw.rectangle([54, 32, 130, 38], fill=(160, 160, 160))
    draw.rectangle([12, 60, 308, 96], fill=(214, 48, 49))
    for n in range(5):
        draw.rectangle([12, 110 + n * 16, 300 - (n % 2) * 60, 118 + n * 16], fill=(120, 120, 120))
    return image


def bar_chart() -> Image.Image:
    """A chart: four bars, the last one far taller (a figure the claim exaggerates)."""
    image = Image.new("RGB", (240, 160), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    draw.line([20, 140, 230, 140], fill=(0, 0, 0), width=2)
    draw.line([20, 10, 20, 140], fill=(0, 0, 0), width=2)
    for n, height in enumerate((30, 36, 41, 110)):
        draw.rectangle([35 + n * 48, 140 - height, 65 + n * 48, 139], fill=(46, 139, 87) if n < 3 else (230, 126, 34))
    return image


def main() -> None:
    FOLDER.mkdir(exist_ok=True)
    river_with_crates().save(FOLDER / "rfb-004.png")
    post_screenshot().save(FOLDER / "rfb-013.png")
    bar_chart().save(FOLDER / "rfb-chart.png")


if __name__ == "__main__":
    main()
