"""The real servers the cluster's tests use: one PostgreSQL and one Redis for the whole run
(``.ci/run`` starts them and names them in ``KC_TEST_POSTGRES`` and ``KC_TEST_REDIS``; without
those, each test process starts its own when the programs are installed). Under CI a missing
server fails the run instead of skipping the tests."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.cluster.servicekit import PgServer, RedisServer, pg_bin, redis_bin


def _missing(what: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{what} is not installed: .ci/run installs it")
    pytest.skip(f"{what} is not installed")


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """The address of a running PostgreSQL (its ``postgres`` database, as the ``postgres`` user)."""
    given = os.environ.get("KC_TEST_POSTGRES")
    if given:
        yield given
        return
    if pg_bin() is None:
        _missing("PostgreSQL")
    server = PgServer()
    server.start()
    try:
        yield server.url
    finally:
        server.remove()


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """The address of a running Redis (no persistence)."""
    given = os.environ.get("KC_TEST_REDIS")
    if given:
        yield given
        return
    if redis_bin() is None:
        _missing("redis-server")
    server = RedisServer()
    server.start()
    try:
        yield server.url
    finally:
        server.stop()
