"""Migrations of issue 25: images in search runs. Never edit one that has shipped."""

from __future__ import annotations

from typing import TYPE_CHECKING

from store.migration_registry import migration

if TYPE_CHECKING:
    from sqlite_utils import Database


@migration
def m017_search_images(db: Database) -> None:
    """Image results and the images a search run's model looked at.

    A result of an image search keeps its picture's address (image_url) beside the page it
    is on (url) and the site's name (source); a result the model looked at names the bytes
    it was shown (sha256, in the images table with the claims' images). image_fetches
    remembers each address fetched once: the image it gave, or why it was refused.
    """
    db.executescript(
        """
        ALTER TABLE search_results ADD COLUMN image_url TEXT;
        ALTER TABLE search_results ADD COLUMN source TEXT;
        ALTER TABLE search_results ADD COLUMN sha256 TEXT REFERENCES images(sha256);
        CREATE TABLE image_fetches (
            url TEXT PRIMARY KEY,
            final_url TEXT,
            sha256 TEXT REFERENCES images(sha256),
            error TEXT,
            fetched_at TEXT NOT NULL,
            CHECK ((sha256 IS NULL) != (error IS NULL))
        );
        """
    )
