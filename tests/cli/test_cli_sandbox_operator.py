"""``smartpos sandbox operator start|cancel`` and ``--control-key``, against served sandboxes."""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from cli_helpers import Starter, cli_env, invoke

import smartpos
from smartpos.testing import RemoteSandbox, Sandbox

KEY = "operator-k3y"


@pytest.fixture(autouse=True)
def no_key_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests say which key they send; none comes from the environment."""
    monkeypatch.delenv("SMARTPOS_SANDBOX_CONTROL_KEY", raising=False)


@pytest.fixture
def world() -> Iterator[tuple[Sandbox, str, list[str]]]:
    """A served sandbox with two manual-mode cards queued; their referencias, oldest first."""
    with (
        Sandbox() as sandbox,
        sandbox.serve() as base_url,
        smartpos.Client(api_key=Sandbox.API_KEY, base_url=base_url, max_retries=0) as client,
    ):
        cards = [
            client.payments.create(
                documento_cliente=Sandbox.DOCUMENTO,
                valor_centavos=700,
                modo_execucao="manual",
                comanda=smartpos.Comanda(label),
            ).referencia
            for label in ("Mesa 1", "Mesa 2")
        ]
        yield sandbox, base_url, cards


def test_operator_start_without_a_referencia_starts_the_oldest_card(
    world: tuple[Sandbox, str, list[str]],
) -> None:
    """``operator start`` takes the oldest card; its payment event is printed, exit 0."""
    sandbox, base_url, cards = world

    result = invoke("sandbox", "operator", "start", "--url", base_url, "--json")
    data = json.loads(result.stdout)

    assert 0 == result.returncode, result.stderr
    assert ("start", cards[0]) == (data["action"], data["referencia"])
    assert "pagamento.aprovado" == data["event"]["tipo"]
    assert cards[0] == data["event"]["dados"]["referencia"]
    assert [cards[1]] == [card.referencia for card in sandbox.manual_queue()]


def test_operator_cancel_names_a_card_and_its_message(
    world: tuple[Sandbox, str, list[str]],
) -> None:
    """``operator cancel REFERENCIA --mensagem`` cancels that card: pagamento.recusado."""
    sandbox, base_url, cards = world

    result = invoke(
        "sandbox", "operator", "cancel", cards[1], "--mensagem", "DESISTIU", "--url", base_url
    )
    (event,) = [e for e in sandbox.events if e["dados"].get("referencia") == cards[1]]

    assert 0 == result.returncode, result.stderr
    assert f"cancelled {cards[1]}" in result.stdout
    assert ("pagamento.recusado", "cancelado") == (event["tipo"], event["dados"]["status"])
    assert "DESISTIU" == event["dados"]["resultadoSmartPOS"]["mensagemOperador"]
    assert [cards[0]] == [card.referencia for card in sandbox.manual_queue()]


def test_operator_with_an_empty_queue_says_how_to_queue_a_card() -> None:
    """No card waiting: exit 1, and the hint names a manual-mode payment."""
    with Sandbox() as sandbox, sandbox.serve() as base_url:
        result = invoke("sandbox", "operator", "start", "--url", base_url)

    assert 1 == result.returncode
    assert "no card waits" in result.stderr
    assert "--manual --comanda" in result.stderr


def test_an_unknown_card_is_the_sandboxs_refusal(world: tuple[Sandbox, str, list[str]]) -> None:
    """A referencia that is not queued: exit 1 with the sandbox's message."""
    _, base_url, _ = world

    result = invoke("sandbox", "operator", "cancel", "nope", "--url", base_url)

    assert 1 == result.returncode
    assert "nope" in result.stderr


def test_operator_sends_the_control_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """A keyed sandbox refuses the command without the key (exit 1, what to do), and takes it
    from --control-key, before or after the action, or from the environment."""
    with (
        Sandbox(control_key=KEY) as sandbox,
        sandbox.serve() as base_url,
        smartpos.Client(api_key=Sandbox.API_KEY, base_url=base_url, max_retries=0) as client,
    ):
        for label in ("A", "B", "C"):
            client.payments.create(
                documento_cliente=Sandbox.DOCUMENTO,
                valor_centavos=100,
                modo_execucao="manual",
                comanda=smartpos.Comanda(label),
            )
        refused = invoke("sandbox", "operator", "start", "--url", base_url)
        before = invoke("sandbox", "--control-key", KEY, "operator", "start", "--url", base_url)
        after = invoke("sandbox", "operator", "cancel", "--url", base_url, "--control-key", KEY)
        monkeypatch.setenv("SMARTPOS_SANDBOX_CONTROL_KEY", KEY)
        from_env = invoke("sandbox", "operator", "start", "--url", base_url)

    assert (1, 0, 0, 0) == (
        refused.returncode,
        before.returncode,
        after.returncode,
        from_env.returncode,
    )
    assert "--control-key" in refused.stderr
    assert KEY not in refused.stderr + before.stdout + after.stdout + from_env.stdout
    assert [] == sandbox.manual_queue()


@pytest.mark.slow
def test_smartpos_sandbox_serves_with_a_control_key_it_never_prints(background: Starter) -> None:
    """``smartpos sandbox --control-key`` requires the key, says so, and never prints it."""
    proc = background("sandbox", "--port", "0", "--json", "--control-key", KEY, env=cli_env())
    ready = json.loads(proc.wait_for(r"^\{").string)
    with (
        RemoteSandbox(ready["base_url"]) as without,
        RemoteSandbox(ready["base_url"], control_key=KEY) as with_key,
    ):
        with pytest.raises(smartpos.testing.SandboxError):
            without.manual_queue()
        queue = with_key.manual_queue()
    assert 0 == proc.stop()

    assert [] == queue
    assert ready["control_key_required"] is True
    assert KEY not in proc.output
