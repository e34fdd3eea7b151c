"""A claim's images: what is known of each, their bytes by content hash, and storing them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from store.connection import atomic

if TYPE_CHECKING:
    from sqlite3 import Connection

    from store.claim_records import ClaimImage


class ClaimImages:
    """The image half of ClaimStore (store.claims.images(...)), apart so each reads on a screen."""

    db: Connection

    def images(self, claim_id: int) -> list[ClaimImage]:
        """The claim's images in rank order, with what is known of each (not the bytes)."""
        from store.claim_records import ClaimImage

        rows = self.db.execute(
            "SELECT ci.rank, ci.source, ci.url, ci.sha256, i.mime, i.bytes, i.width, i.height, ci.caption"
            " FROM claim_images ci LEFT JOIN images i ON i.sha256 = ci.sha256"
            " WHERE ci.claim_id = ? ORDER BY ci.rank, ci.id",
            [claim_id],
        ).fetchall()
        names = ("rank", "source", "url", "sha256", "mime", "bytes", "width", "height", "caption")
        return [ClaimImage(**dict(zip(names, row))) for row in rows]

    def image_data(self, sha256: str) -> bytes | None:
        """An image's bytes, by content hash."""
        row = self.db.execute("SELECT data FROM images WHERE sha256 = ?", [sha256]).fetchone()
        return None if row is None else bytes(row[0])

    def keep_images(self, images: list[dict]) -> None:
        """Store image bytes that evidence refers to by sha256 (once per content), inside the
        caller's transaction when there is one."""
        from store.datasets import INSERT_IMAGE, image_row

        with atomic(self.db):
            self.db.executemany(INSERT_IMAGE, [image_row(image) for image in images])

    def any_with_images(self, claim_ids: list[int]) -> bool:
        """Whether any of these claims has an image."""
        for start in range(0, len(claim_ids), 900):  # below SQLite's parameter limit
            chunk = claim_ids[start : start + 900]
            marks = ", ".join("?" * len(chunk))
            if self.db.execute(f"SELECT 1 FROM claim_images WHERE claim_id IN ({marks}) LIMIT 1", chunk).fetchone():
                return True
        return False

    def have_images(self) -> bool:
        """Whether any claim has an image (the TUI loads its image renderer only then)."""
        return self.db.execute("SELECT 1 FROM claim_images LIMIT 1").fetchone() is not None
