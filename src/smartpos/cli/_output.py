"""What the command prints: plain or coloured text for people, JSON for scripts.

Colour is used only when the stream is a terminal, ``NO_COLOR`` is unset (https://no-color.org)
and ``TERM`` is not ``dumb``; the text reads the same without it. Documents (CPF/CNPJ) are
always masked, and the API key is never printed.
"""

from __future__ import annotations

import datetime as _dt
import enum
import json
import os
import shutil
import sys
import threading
from collections.abc import Mapping
from typing import Any, Final, TextIO

from smartpos._records import mask_documents

from ._i18n import words

__all__ = [
    "EXIT_ATTENTION",
    "EXIT_ERROR",
    "EXIT_OK",
    "EXIT_UNKNOWN",
    "EXIT_USAGE",
    "CommandError",
    "Output",
    "describe_event",
    "format_centavos",
    "is_masked",
    "mask",
    "mask_documents",
    "to_jsonable",
    "use_colour",
]

EXIT_OK: Final = 0
"""Success."""
EXIT_ERROR: Final = 1
"""An error: the service refused, local validation, the network, a file."""
EXIT_USAGE: Final = 2
"""A usage error (argparse's own status)."""
EXIT_UNKNOWN: Final = 3
"""The outcome of an operation on a terminal is unknown: wait for its event, do not retry."""
EXIT_ATTENTION: Final = 4
"""``sales report``: pendências remain (the report is printed); a human decides before the till
closes."""

_STYLES: Final = {
    "bold": "1",
    "dim": "2",
    "red": "31",
    "green": "32",
    "yellow": "33",
    "blue": "34",
    "magenta": "35",
    "cyan": "36",
}
_TIPO_STYLE: Final = {
    "smartpos.identificado": "cyan",
    "pagamento.aprovado": "green",
    "pagamento.recusado": "red",
    "impressao.concluida": "blue",
    "impressao.falhou": "yellow",
}


class CommandError(Exception):
    """A failure the command explains itself: a message, what to do, and an exit status.

    Args:
        message: What happened.
        hint: What to do about it.
        code: The exit status.
    """

    def __init__(self, message: str, *, hint: str | None = None, code: int = EXIT_ERROR) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.code = code


def use_colour(stream: TextIO, *, disabled: bool = False) -> bool:
    """Tell whether to colour ``stream``: a terminal, no ``NO_COLOR``, not ``TERM=dumb``.

    Args:
        stream: The stream written to.
        disabled: ``--no-color`` was given.

    Returns:
        ``True`` when ANSI colours may be written.
    """
    if disabled or os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


def mask(documento: object) -> str:
    """Mask a CPF/CNPJ for display (``529.***.***-25``).

    Args:
        documento: The document, masked or not; anything else is masked whole.

    Returns:
        The masked document.
    """
    from smartpos._documents import mask_documento

    return mask_documento(documento)


def is_masked(documento: object) -> bool:
    """Tell whether a document was masked for display (``529.***.***-25``): it cannot be sent."""
    return isinstance(documento, str) and "*" in documento


def format_centavos(valor: object) -> str:
    """Format an amount in cents as Brazilian reais (``R$ 1.234,56``).

    Args:
        valor: An ``int`` amount in cents; anything else is shown as is.

    Returns:
        The formatted amount.
    """
    if isinstance(valor, bool) or not isinstance(valor, int):
        return str(valor)
    sign = "-" if valor < 0 else ""
    reais, centavos = divmod(abs(valor), 100)
    return f"R$ {sign}{reais:,}".replace(",", ".") + f",{centavos:02d}"


def to_jsonable(value: Any) -> Any:
    """Turn results into JSON-ready data: datetimes as ISO 8601, enums as their value.

    Args:
        value: A dict, list, scalar, datetime or enum (nested freely).

    Returns:
        Plain JSON data.
    """
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, _dt.datetime):
        return value.isoformat()
    if isinstance(value, enum.Enum):
        return to_jsonable(value.value)
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def _dados(raw: Mapping[str, Any]) -> Mapping[str, Any]:
    dados = raw.get("dados")
    return dados if isinstance(dados, Mapping) else {}


def describe_event(raw: Mapping[str, Any]) -> dict[str, str]:
    """Pick the fields of an event envelope worth showing, as display strings, in order.

    Works on any envelope, even one whose ``dados`` does not fit the schema: missing fields
    are left out. The document is masked.

    Args:
        raw: The envelope as received (``id``, ``tipo``, ``criadoEm``, ``dados``).

    Returns:
        Label -> value, starting with ``referencia``.
    """
    dados = _dados(raw)
    shown: dict[str, str] = {}

    def put(label: str, value: object) -> None:
        if value is not None and value != "":
            shown[label] = str(value)

    put("referencia", dados.get("referencia"))
    tipo = raw.get("tipo")
    if tipo == "smartpos.identificado":
        put("smartposId", dados.get("smartposId"))
        put("numeroSerie", dados.get("numeroSerieTerminal"))
        put("adquirente", dados.get("adquirente"))
    else:
        put("status", dados.get("status"))
        if "valorCentavos" in dados:
            valor = format_centavos(dados.get("valorCentavos"))
            if dados.get("formaPagamento"):
                valor += f" {dados.get('formaPagamento')}"
            if dados.get("parcelas") is not None:
                valor += f" {dados.get('parcelas')}x"
            put("valor", valor)
        put("smartposId", dados.get("smartposId"))
        autorizacao = dados.get("autorizacao")
        if isinstance(autorizacao, Mapping) and autorizacao.get("codigo"):
            codigo = str(autorizacao.get("codigo"))
            if autorizacao.get("numeroTransacao"):
                codigo += f" nsu {autorizacao.get('numeroTransacao')}"
            put("autorizacao", codigo)
        resultado = dados.get("resultadoSmartPOS")
        if isinstance(resultado, Mapping) and resultado.get("mensagemOperador"):
            put("terminal", f'"{resultado.get("mensagemOperador")}"')
    if "documentoCliente" in dados:
        put("documento", mask(dados.get("documentoCliente")))
    return shown


class Output:
    """Where and how the command writes: text (optionally coloured) or JSON.

    Thread-safe: lines from server threads and the main thread never interleave.

    Args:
        json_mode: Write machine-readable JSON to stdout instead of text.
        no_colour: ``--no-color`` was given.
        stdout: The output stream (default ``sys.stdout``).
        stderr: The error stream (default ``sys.stderr``).
    """

    def __init__(
        self,
        *,
        json_mode: bool = False,
        no_colour: bool = False,
        stdout: TextIO | None = None,
        stderr: TextIO | None = None,
    ) -> None:
        self.stdout = stdout or sys.stdout
        self.stderr = stderr or sys.stderr
        self.json = json_mode
        self.colour = use_colour(self.stdout, disabled=no_colour)
        self.err_colour = use_colour(self.stderr, disabled=no_colour)
        self.interactive = not json_mode and self.colour
        self._lock = threading.Lock()
        self._status = False

    def style(self, text: str, *names: str, err: bool = False) -> str:
        """Wrap ``text`` in ANSI styles when colour is on for that stream.

        Args:
            text: The text.
            *names: Style names: bold, dim, red, green, yellow, blue, magenta, cyan.
            err: Style for stderr instead of stdout.

        Returns:
            The text, styled or not.
        """
        if not names or not (self.err_colour if err else self.colour):
            return text
        codes = ";".join(_STYLES[name] for name in names)
        return f"\x1b[{codes}m{text}\x1b[0m"

    def tipo(self, tipo: str) -> str:
        """Style an event's ``tipo`` by kind (approval green, refusal red...)."""
        return self.style(tipo, "bold", _TIPO_STYLE.get(tipo, "magenta"))

    def line(self, text: str = "") -> None:
        """Print a line of human text to stdout (nothing in JSON mode).

        A progress line written by `status` is erased first; the next ``status`` call
        draws it again below.
        """
        if not self.json:
            self._write(self.stdout, text + "\n", erase_status=True)

    def status(self, text: str) -> None:
        """Rewrite the current terminal line (progress); a no-op unless interactive."""
        if self.interactive:
            self._write(self.stdout, "\r\x1b[2K" + text, status=True)

    def clear_status(self) -> None:
        """Erase a progress line written by `status`."""
        if self.interactive:
            self._write(self.stdout, "", erase_status=True)

    def data(self, value: Any) -> None:
        """Print one JSON document on one line to stdout (JSON mode only)."""
        if self.json:
            text = json.dumps(to_jsonable(value), ensure_ascii=False, separators=(",", ":"))
            self._write(self.stdout, text + "\n")

    def fields(self, values: Mapping[str, object], *, indent: int = 2) -> None:
        """Print ``label  value`` lines, labels aligned (nothing in JSON mode)."""
        if not values:
            return
        width = max(len(label) for label in values)
        for label, value in values.items():
            self.line(" " * indent + self.style(label.ljust(width), "dim") + "  " + str(value))

    def event(
        self,
        raw: Mapping[str, Any],
        *,
        prefix: str = "",
        note: str | None = None,
        note_style: str = "yellow",
    ) -> None:
        """Print an event envelope readably: ``tipo`` and ``id``, then its key fields.

        Args:
            raw: The envelope.
            prefix: Text before the ``tipo`` (a time, an arrow).
            note: A remark after the id (``DUPLICATE``).
            note_style: The style of the remark.
        """
        tipo = str(raw.get("tipo", "?"))
        head = f"{prefix}{self.tipo(tipo)}  id {raw.get('id', '?')}"
        if note:
            head += "  " + self.style(note, "bold", note_style)
        lines = [head]
        width = max(60, min(shutil.get_terminal_size((100, 24)).columns, 120))
        line, length = "    ", 4
        for label, value in describe_event(raw).items():
            part, size = f"{self.style(label, 'dim')} {value}", len(label) + 1 + len(value)
            if length > 4 and length + 2 + size > width:
                lines.append(line)
                line, length = "    ", 4
            if length > 4:
                line, length = line + "  ", length + 2
            line, length = line + part, length + size
        if length > 4:
            lines.append(line)
        # One write, so a progress line from another thread cannot land inside the event.
        self.line("\n".join(lines))

    def warn(self, message: str) -> None:
        """Print a warning on stderr (in JSON mode too: it is never data)."""
        self._write(
            self.stderr, self.style(words("warning:"), "bold", "yellow", err=True) + f" {message}\n"
        )

    def error(self, message: str, *, hint: str | None = None, details: Any = None) -> None:
        """Report a failure on stderr: text, or one JSON object ``{"error": ...}``.

        Args:
            message: What happened.
            hint: What to do about it.
            details: Key -> value (codigo, mensagem, acao, request_id...), or ``None``. Keys
                are snake_case, the spelling of the JSON success output; text shows
                ``request_id`` as ``request id``. ``None`` values are left out of text.
        """
        if self.json:
            payload: dict[str, Any] = {"message": message}
            if hint:
                payload["hint"] = hint
            if details:
                payload.update(details)
            text = json.dumps({"error": to_jsonable(payload)}, ensure_ascii=False)
            self._write(self.stderr, text + "\n")
            return
        lines = [self.style(words("error:"), "bold", "red", err=True) + " " + message]
        shown = {words(k.replace("_", " ")): v for k, v in (details or {}).items() if v is not None}
        if shown:
            width = max(len(k) for k in shown)
            lines += [f"  {k.ljust(width)}  {v}" for k, v in shown.items()]
        if hint:
            lines.append(self.style(words("what to do:"), "bold", err=True) + " " + hint)
        self._write(self.stderr, "\n".join(lines) + "\n")

    def _write(
        self, stream: TextIO, text: str, *, erase_status: bool = False, status: bool = False
    ) -> None:
        with self._lock:
            if erase_status and self._status and stream is self.stdout:
                text = "\r\x1b[2K" + text
                self._status = False
            if status:
                self._status = True
            try:
                try:
                    stream.write(text)
                except UnicodeEncodeError:
                    stream.write(text.encode("ascii", "replace").decode("ascii"))
                stream.flush()
            except (BrokenPipeError, ValueError):
                # The reader went away (`smartpos listen | head`): the main thread stops the
                # command; a server thread must not die with a traceback mid-request.
                if threading.current_thread() is threading.main_thread():
                    raise
