"""The one TLS context every HTTPS client of the bot shares still checks who it talks to."""

from __future__ import annotations

import ssl

from bot.tls import shared_tls_context


def test_the_shared_tls_context_verifies_certificates_and_host_names() -> None:
    context = shared_tls_context()
    assert context.verify_mode == ssl.CERT_REQUIRED
    assert context.check_hostname
    assert context.cert_store_stats()["x509_ca"] > 50  # a real CA bundle is loaded


def test_every_client_gets_the_same_context_not_a_copy() -> None:
    assert shared_tls_context() is shared_tls_context()
