//! Unit tests of the model table (compiled for tests only).

use super::*;

#[test]
fn an_unknown_id_is_read_by_the_row_the_advice_names_in_its_family() {
    let t = ModelTable::bundled();
    for id in [
        "claude-opus-9-9",
        "claude-haiku-9",
        "gpt-9.9-sol",
        "gemini-9-flash",
    ] {
        let row = &t.resolve(Some(id)).id;
        assert_eq!(row, t.nearest(id), "{id}");
        assert!(
            t.advice(id)
                .unwrap()
                .contains(&format!("nearest current one is {row}"))
        );
    }
    assert!(
        t.resolve(Some("claude-opus-9-9"))
            .id
            .starts_with("claude-opus-")
    );
    // Of no family the table knows: the default model.
    assert_eq!(t.resolve(Some("mistral-large")).id, t.default_model().id);
}

#[test]
fn claude_code_aliases_are_the_newest_row_of_their_family() {
    let t = ModelTable::bundled();
    let id = |a: &str| t.resolve(Some(a)).id.clone();
    // The bundled table holds LiteLLM's rows beside this tool's.
    assert_eq!(id("sonnet"), "claude-sonnet-5-5");
    assert_eq!(id("sonnet[1m]"), "claude-sonnet-5-5");
    assert_eq!(id("opus"), "claude-opus-5-5");
    assert_eq!(id("opusplan"), "claude-opus-5-5");
    assert_eq!(id("haiku"), "claude-haiku-5-5");
    assert!(t.alias("claude-sonnet").is_none());
    assert!(t.alias("best").is_none());
}

#[test]
fn dated_snapshots_and_cloud_ids_find_their_row() {
    let t = ModelTable::bundled();
    // The dated row when LiteLLM lists it, else the model's own.
    for (id, row) in [
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5-20250929"),
        ("claude-sonnet-4-5@20250929", "claude-sonnet-4-5"),
        (
            "anthropic.claude-sonnet-4-5-20250929-v1:0",
            "claude-sonnet-4-5",
        ),
        ("claude-sonnet-4-6-20260101", "claude-sonnet-4-6"),
    ] {
        assert_eq!(t.get(id).map(|m| m.id.as_str()), Some(row), "{id}");
    }
    assert_eq!(
        t.get("gpt-4o-2099-08-06").map(|m| m.id.as_str()),
        Some("gpt-4o")
    );
    assert!(t.get("smollm2").is_none());
    assert!(t.get("claude-sonnet-4-5-2025").is_none());
}

#[test]
fn bundled_table_loads_and_has_every_provider() {
    let t = ModelTable::bundled();
    for p in [
        Provider::Anthropic,
        Provider::Openai,
        Provider::Prefix,
        Provider::Gemini,
    ] {
        assert!(t.models.iter().any(|m| m.provider == p), "{p:?}");
    }
    assert_eq!(t.default_model().id, t.default_model);
    assert!(t.get("claude-haiku-4-5").unwrap().min_cacheable_tokens == 4096);
    for m in &t.models {
        assert!(
            m.source.is_some() && m.as_of.is_some(),
            "{} names its source",
            m.id
        );
    }
    assert_eq!(t.default_model().status, Lifecycle::Active);
}

#[test]
fn retired_and_unknown_models_are_advised() {
    let t = ModelTable::bundled();
    let a = t.advice("claude-sonnet-4-5").unwrap();
    assert!(
        a.contains("retired (2026-11-30): use claude-sonnet-4-6"),
        "{a}"
    );
    let a = t.advice("claude-sonet-4-6").unwrap();
    assert!(
        a.contains("nearest current one is claude-sonnet-4-6"),
        "{a}"
    );
    assert_eq!(t.advice("claude-sonnet-4-6"), None);
    // Claude Code's aliases are read, not unknown.
    for alias in ["opus", "sonnet", "haiku", "sonnet[1m]", "opusplan"] {
        assert_eq!(t.advice(alias), None, "{alias}");
    }
}

#[test]
fn the_agents_default_models_are_priced_as_their_vendor_prices_them() {
    let t = ModelTable::bundled();
    let opus = t.get("claude-opus-5-5").expect("Claude Code 2.1's default");
    assert_eq!(opus.provider, Provider::Anthropic);
    assert_eq!(opus.context_window, 1_000_000);
    assert!(opus.input_per_mtok > 0.0 && opus.estimate);
    let sol = t.get("gpt-6.1-sol").expect("Codex 0.169's default");
    assert_eq!(sol.provider, Provider::Openai);
    assert!(!sol.estimate);
    for id in ["claude-fable-5-1", "gpt-5.6-terra", "gpt-5.6-luna"] {
        assert!(t.get(id).is_some(), "{id}");
    }
    // This tool's rows win where they know better (a cache minimum, a
    // local server LiteLLM does not list).
    assert_eq!(
        t.get("claude-haiku-4-5").unwrap().min_cacheable_tokens,
        4096
    );
    assert!(t.get("local-llama").is_some());
}

#[test]
fn a_litellm_file_is_filtered_to_a_snapshot_and_read_back() {
    let raw = r#"{"sample_spec": {"mode": "chat"},
        "claude-x-9": {"litellm_provider": "anthropic", "mode": "chat", "input_cost_per_token": 3e-06,
          "output_cost_per_token": 1.5e-05, "cache_read_input_token_cost": 3e-07, "max_input_tokens": 200000,
          "supports_vision": true, "input_cost_per_token_above_200k_tokens": 6e-06},
        "bedrock/claude-x-9": {"litellm_provider": "bedrock", "mode": "chat", "input_cost_per_token": 1e-06},
        "text-embedding-9": {"litellm_provider": "openai", "mode": "embedding", "input_cost_per_token": 1e-07}}"#;
    let snap = super::super::litellm::snapshot(raw, "test", "2026-12-01").unwrap();
    assert!(
        !snap.contains("supports_vision") && snap.contains("above_200k"),
        "{snap}"
    );
    let rows = super::super::litellm::rows(&snap).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].id, "claude-x-9");
    assert!((rows[0].input_per_mtok - 3.0).abs() < 1e-9);
    assert_eq!(rows[0].as_of.as_deref(), Some("2026-12-01"));
    assert!(super::super::litellm::snapshot("{}", "t", "d").is_err());
    // The Gemini API's rows (`gemini/MODEL`) under their bare ids, not
    // Vertex AI's (the bare ids of another price list).
    let raw = r#"{"gemini/gemini-x-9": {"litellm_provider": "gemini", "mode": "chat",
          "input_cost_per_token": 1.5e-06, "cache_read_input_token_cost": 1.5e-07},
        "gemini-x-9": {"litellm_provider": "vertex_ai-language-models", "mode": "chat",
          "input_cost_per_token": 9e-06}}"#;
    let snap = super::super::litellm::snapshot(raw, "test", "2026-12-05").unwrap();
    let rows = super::super::litellm::rows(&snap).unwrap();
    assert_eq!(rows.len(), 1, "{snap}");
    assert_eq!(
        (rows[0].id.as_str(), rows[0].provider, rows[0].estimate),
        ("gemini-x-9", Provider::Gemini, true)
    );
    assert!((rows[0].input_per_mtok - 1.5).abs() < 1e-9);
}

#[test]
fn broken_table_names_line() {
    let err = ModelTable::parse("{\n\"models\": [\n oops]}").unwrap_err();
    assert!(err.to_string().contains("line 3"), "{err}");
}
