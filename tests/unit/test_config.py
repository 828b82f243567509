"""Settings read from the environment: defaults, friendly parsing, errors naming the variable."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared.config import DEFAULT_RATE_LIMIT, ENV, load_settings
from shared.errors import NotConfigured


def test_defaults_match_the_contract() -> None:
    """With nothing set: sqlite in ./.biblioteca, token auth, local providers, /ask."""
    settings = load_settings({})
    assert settings.store == "sqlite"
    assert settings.data_dir == Path(".biblioteca")
    assert settings.site_location == str(Path(".biblioteca") / "site")
    assert settings.report_location == str(Path(".biblioteca") / "report")
    assert (settings.auth, settings.llm, settings.embedder) == ("token", "local", "local")
    assert settings.api_token is None
    assert settings.allowed_origins == ()
    assert settings.rate_limit == DEFAULT_RATE_LIMIT
    assert settings.archive_from_widget is False
    assert settings.ask_url == "/ask"


def test_site_and_report_follow_the_data_dir() -> None:
    """The site and report folders default under BIBLIOTECA_DATA_DIR; a gs:// site is kept."""
    settings = load_settings({"BIBLIOTECA_DATA_DIR": "/srv/b"})
    assert settings.site_location == "/srv/b/site"
    assert settings.report_location == "/srv/b/report"
    bucket = load_settings({"BIBLIOTECA_SITE_DIR": "gs://bucket/docs"})
    assert bucket.site_location == "gs://bucket/docs"


def test_a_bucket_report_keeps_its_double_slash() -> None:
    """BIBLIOTECA_REPORT_DIR=gs://bucket/prefix stays text; a Path would make it gs:/bucket."""
    settings = load_settings({"BIBLIOTECA_REPORT_DIR": "gs://private/report"})
    assert settings.report_location == "gs://private/report"


@pytest.mark.parametrize("variable", sorted(ENV))
def test_a_blank_variable_counts_as_unset(variable: str) -> None:
    """VAR= (as .env files and compose write it) means the default, never an error or ''."""
    assert load_settings({variable: "  "}) == load_settings({})


@pytest.mark.parametrize("value", ["", "changeme", "CHANGE-ME", "<your-token>", "todo", " null "])
def test_placeholder_tokens_are_no_token(value: str) -> None:
    """A placeholder token is treated as missing, so writes answer 503, never accept it."""
    settings = load_settings({"BIBLIOTECA_API_TOKEN": value, "GOOGLE_AI_API_KEY": value})
    assert settings.api_token is None
    assert settings.google_ai_api_key is None
    with pytest.raises(NotConfigured) as caught:
        settings.require_api_token()
    assert "BIBLIOTECA_API_TOKEN" in caught.value.message
    with pytest.raises(NotConfigured) as caught:
        settings.require_gemini_key()
    assert "GOOGLE_AI_API_KEY" in caught.value.message


def test_secrets_are_not_shown_in_the_settings_repr() -> None:
    """The token and the key never appear when the settings are printed or logged."""
    settings = load_settings(
        {"BIBLIOTECA_API_TOKEN": "s3cret-token-value", "GOOGLE_AI_API_KEY": "AIza-k3y"}
    )
    assert settings.require_api_token() == "s3cret-token-value"
    assert "s3cret-token-value" not in repr(settings)
    assert "AIza-k3y" not in str(settings)


def test_choices_are_case_and_space_insensitive() -> None:
    """' FIRESTORE ', 'IAM', 'Gemini' are accepted."""
    settings = load_settings(
        {"BIBLIOTECA_STORE": " FIRESTORE ", "BIBLIOTECA_AUTH": "IAM", "BIBLIOTECA_LLM": "Gemini"}
    )
    assert (settings.store, settings.auth, settings.llm) == ("firestore", "iam", "gemini")


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("BIBLIOTECA_STORE", "mysql"),
        ("BIBLIOTECA_AUTH", "basic"),
        ("BIBLIOTECA_LLM", "gpt"),
        ("BIBLIOTECA_EMBEDDER", "openai"),
        ("BIBLIOTECA_RATE_LIMIT", "30/week"),
        ("BIBLIOTECA_RATE_LIMIT", "lots"),
        ("BIBLIOTECA_RATE_LIMIT", "0/minute"),
        ("BIBLIOTECA_SITE_URL", "docs.example.com"),
        ("BIBLIOTECA_SITE_URL", "ftp://docs.example.com"),
    ],
)
def test_an_unusable_value_is_not_configured_naming_the_variable(variable: str, value: str) -> None:
    """A value outside the choices is a NotConfigured (503) whose message names the variable."""
    with pytest.raises(NotConfigured) as caught:
        load_settings({variable: value})
    assert caught.value.status == 503
    assert variable in caught.value.message


@pytest.mark.parametrize(
    ("value", "window"),
    [
        ("30/minute", (30, 60)),
        (" 5 / second ", (5, 1)),
        ("100/hour", (100, 3600)),
        ("1/day", (1, 86400)),
    ],
)
def test_the_rate_limit_window(value: str, window: tuple[int, int]) -> None:
    """N/second|minute|hour|day is (N, seconds)."""
    assert load_settings({"BIBLIOTECA_RATE_LIMIT": value}).rate_limit_window == window


def test_allowed_origins_are_a_trimmed_list_without_trailing_slashes() -> None:
    """Comma-separated origins, spaces and trailing '/' removed, empties dropped."""
    settings = load_settings(
        {"BIBLIOTECA_ALLOWED_ORIGINS": " https://a.example/ ,, http://b.example:8080"}
    )
    assert settings.allowed_origins == ("https://a.example", "http://b.example:8080")


@pytest.mark.parametrize(
    ("value", "flag"), [("1", True), ("true", True), (" YES ", True), ("0", False), ("no", False)]
)
def test_archive_from_widget_flag(value: str, flag: bool) -> None:
    """BIBLIOTECA_ARCHIVE_FROM_WIDGET=1/true/yes/on turns it on; anything else leaves it off."""
    assert load_settings({"BIBLIOTECA_ARCHIVE_FROM_WIDGET": value}).archive_from_widget is flag


def test_firestore_needs_a_project_when_used() -> None:
    """BIBLIOTECA_STORE=firestore without GOOGLE_CLOUD_PROJECT is a 503 naming it, at use."""
    settings = load_settings({"BIBLIOTECA_STORE": "firestore"})
    with pytest.raises(NotConfigured) as caught:
        settings.require_project()
    assert "GOOGLE_CLOUD_PROJECT" in caught.value.message
    assert load_settings({"GOOGLE_CLOUD_PROJECT": "p"}).require_project() == "p"


def test_gemini_base_url_loses_its_trailing_slash() -> None:
    """GEMINI_BASE_URL is trimmed so paths can be appended."""
    assert (
        load_settings({"GEMINI_BASE_URL": " http://127.0.0.1:9/ "}).gemini_base_url
        == "http://127.0.0.1:9"
    )


def test_the_site_url_is_kept_without_its_trailing_slash() -> None:
    """BIBLIOTECA_SITE_URL: an absolute http(s) URL, a path allowed, no trailing '/'."""
    settings = load_settings({"BIBLIOTECA_SITE_URL": " https://docs.example.com/wiki/ "})
    assert settings.site_url == "https://docs.example.com/wiki"
    assert load_settings({}).site_url is None


def test_trace_retention_is_at_least_the_contracts_30_days() -> None:
    """BIBLIOTECA_TRACE_DAYS defaults to 90; under 30 is refused, naming the variable."""
    from shared.config import load_settings
    from shared.errors import NotConfigured

    assert load_settings({}).trace_days == 90
    assert load_settings({"BIBLIOTECA_TRACE_DAYS": "30"}).trace_days == 30
    with pytest.raises(NotConfigured, match="BIBLIOTECA_TRACE_DAYS"):
        load_settings({"BIBLIOTECA_TRACE_DAYS": "29"})


# -- named credentials (BIBLIOTECA_API_TOKENS) --------------------------------------------


def test_named_tokens_and_the_single_one_are_the_credentials_with_their_actors() -> None:
    """name:token pairs (spaces and an empty entry tolerated, a ':' inside a token kept),
    then BIBLIOTECA_API_TOKEN as the actor default; every token is a secret."""
    settings = load_settings(
        {
            "BIBLIOTECA_API_TOKENS": " ana:tok-ana-1 , ci-docs:tok:with:colons,",
            "BIBLIOTECA_API_TOKEN": "tok-single-1",
        }
    )
    assert settings.credentials() == [
        ("ana", "tok-ana-1"),
        ("ci-docs", "tok:with:colons"),
        ("default", "tok-single-1"),
    ]
    assert "tok-ana-1" not in repr(settings)
    assert load_settings({"BIBLIOTECA_API_TOKENS": "ana:t-1"}).credentials() == [("ana", "t-1")]


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("ana", "entry 1 is not name:token"),
        (":secret-value-1", "entry 1 is not name:token"),
        ("ana:t-1,bob:", "entry 2 (bob) has no usable token"),
        ("ana:changeme", "entry 1 (ana) has no usable token"),
        ("ana:t-1,ana:t-2", "the name ana is given twice"),
        ("ana:t-1,bob:t-1", "entry 2 (bob) repeats another entry's token"),
        ("a na:t-1", "entry 1: a name is letters"),
    ],
)
def test_malformed_named_tokens_are_a_clear_error_naming_the_variable(
    value: str, said: str
) -> None:
    """Each malformed value is NotConfigured naming BIBLIOTECA_API_TOKENS and the entry,
    never the token itself (the message reaches a 503's body and the logs)."""
    with pytest.raises(NotConfigured) as caught:
        load_settings({"BIBLIOTECA_API_TOKENS": value})
    assert "BIBLIOTECA_API_TOKENS" in caught.value.message
    assert said in caught.value.message
    for token in ("secret-value-1", "t-1", "t-2"):
        assert token not in caught.value.message


def test_no_credential_at_all_names_both_variables() -> None:
    """Without either variable, require_credentials is the 503 naming both."""
    with pytest.raises(NotConfigured) as caught:
        load_settings({}).require_credentials()
    assert "BIBLIOTECA_API_TOKENS" in caught.value.message
    assert "BIBLIOTECA_API_TOKEN " in caught.value.message


def test_the_revision_retention_is_a_count_and_zero_keeps_all() -> None:
    """BIBLIOTECA_REVISIONS_KEEP: default 100, 0 keeps every revision, negative refused."""
    assert load_settings({}).revisions_keep == 100
    assert load_settings({"BIBLIOTECA_REVISIONS_KEEP": "0"}).revisions_keep == 0
    with pytest.raises(NotConfigured, match="BIBLIOTECA_REVISIONS_KEEP"):
        load_settings({"BIBLIOTECA_REVISIONS_KEEP": "-1"})
