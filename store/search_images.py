"""Images in search runs: each image address fetched once (image_fetches, migration m017;
the bytes in the images table beside the claims' own, by sha256), and how a run used
image search. Mixed into SearchStore."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from store.connection import atomic
from store.records import now_iso

if TYPE_CHECKING:
    from sqlite3 import Connection

IMAGE_SEARCH_TOOLS = ("search_images", "search_by_image")
VIEW_TOOL = "view_image"


@dataclass(frozen=True)
class FetchRecord:
    """What fetching an image address gave: the image, or why it was refused."""

    url: str
    final_url: str | None
    sha256: str | None
    error: str | None
    mime: str | None = None
    bytes: int | None = None
    width: int | None = None
    height: int | None = None


class SearchImages:
    db: Connection

    def fetched_image(self, url: str) -> FetchRecord | None:
        """The stored outcome of fetching `url`, if it was fetched."""
        row = self.db.execute(
            "SELECT f.url, f.final_url, f.sha256, f.error, i.mime, i.bytes, i.width, i.height FROM image_fetches f"
            " LEFT JOIN images i ON i.sha256 = f.sha256 WHERE f.url = ?",
            [url],
        ).fetchone()
        return FetchRecord(*row) if row else None

    def record_fetch(self, url: str, final_url: str | None, image: dict | None, error: str | None) -> None:
        """Keep a fetch's outcome: the image (sha256, mime, bytes, width, height, data) once
        per content, or the reason it was refused."""
        with atomic(self.db):
            if image is not None:
                self.db.execute(
                    "INSERT OR IGNORE INTO images (sha256, mime, bytes, width, height, data) VALUES (?, ?, ?, ?, ?, ?)",
                    [image["sha256"], image["mime"], image["bytes"], image["width"], image["height"], image["data"]],
                )
            self.db.execute(
                "INSERT OR REPLACE INTO image_fetches (url, final_url, sha256, error, fetched_at) VALUES (?, ?, ?, ?, ?)",
                [url, final_url, image["sha256"] if image else None, error, now_iso()],
            )

    def image_facts(self, sha256s: list[str]) -> dict[str, tuple[str, int, int, int]]:
        """sha256 -> (mime, bytes, width, height) of stored images."""
        wanted = sorted(set(sha256s))
        if not wanted:
            return {}
        rows = self.db.execute(
            f"SELECT sha256, mime, bytes, width, height FROM images WHERE sha256 IN ({', '.join('?' * len(wanted))})",
            wanted,
        )
        return {sha: tuple(rest) for sha, *rest in rows}

    def image_counts(self, run_id: int) -> dict:
        """How a run searched images: image searches per claim, image results shown and
        dropped, images looked at, and which claims saw image results or images."""
        tools = ", ".join("?" * len(IMAGE_SEARCH_TOOLS))
        per_claim = dict(
            self.db.execute(
                f"SELECT claim_id, sum(kind = 'search' AND tool IN ({tools})) FROM search_steps WHERE run_id = ?"
                " GROUP BY claim_id",
                [*IMAGE_SEARCH_TOOLS, run_id],
            ).fetchall()
        )
        shown, dropped, shown_claims = self.db.execute(
            f"SELECT sum(r.dropped IS NULL), sum(r.dropped IS NOT NULL),"
            f" count(DISTINCT CASE WHEN r.dropped IS NULL THEN s.claim_id END)"
            f" FROM search_results r JOIN search_steps s ON s.id = r.step_id"
            f" WHERE s.run_id = ? AND s.tool IN ({tools}) AND r.image_url IS NOT NULL",
            [run_id, *IMAGE_SEARCH_TOOLS],
        ).fetchone()
        viewed = dict(
            self.db.execute(
                "SELECT s.claim_id, count(*) FROM search_results r JOIN search_steps s ON s.id = r.step_id"
                " WHERE s.run_id = ? AND s.tool = ? AND r.sha256 IS NOT NULL GROUP BY s.claim_id",
                [run_id, VIEW_TOOL],
            ).fetchall()
        )
        shown_by_claim = [
            c
            for (c,) in self.db.execute(
                f"SELECT DISTINCT s.claim_id FROM search_results r JOIN search_steps s ON s.id = r.step_id"
                f" WHERE s.run_id = ? AND s.tool IN ({tools}) AND r.image_url IS NOT NULL AND r.dropped IS NULL",
                [run_id, *IMAGE_SEARCH_TOOLS],
            )
        ]
        return {
            "image_searches_per_claim": {c: n or 0 for c, n in per_claim.items()},
            "image_results_shown": shown or 0,
            "image_results_dropped": dropped or 0,
            "image_result_claims": sorted(shown_by_claim),
            "viewed_per_claim": viewed,
            "claims_with_image_results": shown_claims or 0,
        }
