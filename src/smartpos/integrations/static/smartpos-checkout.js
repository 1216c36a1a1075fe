/*! smartpos-checkout.js: the cashier's screen of a smartpos sale. No dependencies, no build.
 *
 *   <div data-smartpos-checkout
 *        data-status-url="/caixa/smartpos"      where the status routes are mounted
 *        data-sale-id="pedido-42"                 follow this sale (re-attaches on reload)
 *        data-operation="..."                     or follow one operation (a QR code)
 *        data-charge-url="/pedidos/42/cobrar"     POST: starts an attempt (optional)
 *        data-abandon-url="/pedidos/42/abandonar" POST: calls client.abandon (optional)
 *        data-pair-url="/terminais/parear"        POST: answers {"referencia": ...} of a QR code
 *        data-csrf-token="..."></div>             sent as X-CSRFToken with each POST
 *   <script src="/caixa/smartpos/smartpos-checkout.js" defer></script>
 *
 * Texts are Portuguese; override them with window.SmartPOSCheckoutTexts = {waiting: "..."}
 * before the script loads, or data-texts='{"waiting": "..."}' on the element.
 * Follows with EventSource (Server-Sent Events), or a ?wait=25 long poll without it.
 */
(function () {
  "use strict";

  var TEXTS = {
    open: "Pronto para cobrar",
    sending: "Enviando ao terminal…",
    waiting: "Aguardando o terminal…",
    unknown: "Sem resposta do serviço: confira o terminal antes de cobrar de novo",
    approved: "Pagamento aprovado",
    refused: "Pagamento recusado",
    rejected: "O serviço recusou a cobrança",
    abandoned: "Cobrança abandonada",
    late_approval: "Aprovação tardia: pendência para o gerente",
    paired: "Terminal pareado",
    expired: "QR code expirado: gere outro",
    final: "Concluído",
    pendencia: "Pendência: um gerente precisa revisar esta venda",
    pendencia_late_approval: "aprovação de uma cobrança abandonada",
    pendencia_no_outcome: "cobrança sem resultado",
    pendencia_contradiction: "eventos contraditórios",
    pendencia_duplicate: "evento duplicado",
    pendencia_disagreement: "evento diferente do pedido",
    pendencia_unreadable: "evento ilegível",
    pendencia_rejected: "evento de cobrança recusada pelo serviço",
    charge: "Cobrar",
    retry: "Tentar de novo",
    abandon: "Abandonar",
    pair: "Parear terminal",
    scan: "Leia este QR code no terminal",
    expires: "Expira às",
    terminal: "Terminal",
    authorization: "Autorização",
    error: "Falha de comunicação; tentando de novo…"
  };

  function merge(base, extra) {
    var out = {}, key;
    for (key in base) { out[key] = base[key]; }
    for (key in extra || {}) { out[key] = extra[key]; }
    return out;
  }

  function el(tag, className) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    return node;
  }

  function money(centavos) {
    if (typeof centavos !== "number") { return ""; }
    return "R$ " + (centavos / 100).toFixed(2).replace(".", ",");
  }

  function Checkout(root, options) {
    var data = root.dataset;
    var extraTexts = null;
    try { extraTexts = data.texts ? JSON.parse(data.texts) : null; } catch (e) { extraTexts = null; }
    this.root = root;
    this.options = merge({
      statusUrl: data.statusUrl || "",
      saleId: data.saleId || "",
      operation: data.operation || "",
      chargeUrl: data.chargeUrl || "",
      abandonUrl: data.abandonUrl || "",
      pairUrl: data.pairUrl || "",
      csrfToken: data.csrfToken || ""
    }, options);
    this.texts = merge(merge(TEXTS, window.SmartPOSCheckoutTexts), extraTexts);
    this.lastId = "";
    this.source = null;
    this.pollAbort = null;
    this.stopped = false;
    this.build();
    if (this.options.saleId || this.options.operation) { this.follow(); }
    else { this.render(null); }
  }

  Checkout.prototype.build = function () {
    var self = this, t = this.texts;
    this.root.classList.add("smartpos-checkout");
    this.statusNode = el("p", "smartpos-status");
    this.statusNode.setAttribute("role", "status");
    this.statusNode.setAttribute("aria-live", "polite");
    this.detailNode = el("p", "smartpos-detail");
    this.messageNode = el("p", "smartpos-message");
    this.pendenciaNode = el("p", "smartpos-pendencia");
    this.qrNode = el("figure", "smartpos-qr");
    this.qrImage = el("img");
    this.qrImage.alt = t.scan;
    this.qrCaption = el("figcaption");
    this.qrNode.appendChild(this.qrImage);
    this.qrNode.appendChild(this.qrCaption);
    this.chargeButton = el("button", "smartpos-charge");
    this.chargeButton.type = "button";
    this.chargeButton.textContent = t.charge;
    this.chargeButton.addEventListener("click", function () { self.post(self.options.chargeUrl, true); });
    this.abandonButton = el("button", "smartpos-abandon");
    this.abandonButton.type = "button";
    this.abandonButton.textContent = t.abandon;
    this.abandonButton.addEventListener("click", function () { self.post(self.options.abandonUrl, false); });
    this.pairButton = el("button", "smartpos-pair");
    this.pairButton.type = "button";
    this.pairButton.textContent = t.pair;
    this.pairButton.addEventListener("click", function () { self.pair(); });
    [this.statusNode, this.detailNode, this.messageNode, this.pendenciaNode, this.qrNode,
      this.chargeButton, this.abandonButton, this.pairButton].forEach(function (node) {
      self.root.appendChild(node);
    });
  };

  Checkout.prototype.url = function () {
    var base = this.options.statusUrl.replace(/\/$/, "");
    if (this.options.saleId) { return base + "/sales/" + encodeURIComponent(this.options.saleId); }
    return base + "/operations/" + encodeURIComponent(this.options.operation);
  };

  Checkout.prototype.follow = function () {
    var self = this;
    this.stop();
    this.stopped = false;
    if (!window.EventSource || this.options.longPoll) { this.poll(); return; }
    var url = this.url() + (this.lastId ? "?since=" + encodeURIComponent(this.lastId) : "");
    var source = new window.EventSource(url);
    this.source = source;
    source.addEventListener("state", function (e) {
      self.lastId = e.lastEventId || self.lastId;
      self.render(JSON.parse(e.data));
    });
    source.addEventListener("end", function () { source.close(); });
    source.onerror = function () {
      if (source.readyState === 2 && !self.stopped) {  // closed for good (a 403, a 404)
        self.showError();
        window.setTimeout(function () { if (self.source === source) { self.follow(); } }, 2000);
      }
    };
  };

  Checkout.prototype.poll = function () {
    var self = this;
    // The first request answers at once; the next ones wait for a change after the last id.
    var url = this.url() + (this.lastId ? "?wait=25&since=" + encodeURIComponent(this.lastId) : "");
    var controller = window.AbortController ? new window.AbortController() : null;
    this.pollAbort = controller;
    window.fetch(url, {
      headers: { Accept: "application/json" },
      credentials: "same-origin",
      signal: controller ? controller.signal : undefined
    })
      .then(function (response) {
        if (!response.ok) { throw new Error(String(response.status)); }
        return response.json();
      })
      .then(function (view) {
        if (self.pollAbort !== controller) { return; }  // replaced by a newer poll
        if (view.id !== self.lastId) { self.lastId = view.id; self.render(view); }
        if (!view.done && !self.stopped) { self.poll(); }
      })
      .catch(function () {
        if (self.pollAbort !== controller || self.stopped) { return; }
        self.showError();
        window.setTimeout(function () { if (self.pollAbort === controller) { self.poll(); } }, 2000);
      });
  };

  Checkout.prototype.stop = function () {
    this.stopped = true;
    if (this.source) { this.source.close(); this.source = null; }
    if (this.pollAbort) { this.pollAbort.abort(); this.pollAbort = null; }
  };

  Checkout.prototype.showError = function () {
    this.messageNode.textContent = this.texts.error;
  };

  // What a POST sends: the fields the page put inside the element (a document, a terminal).
  Checkout.prototype.fields = function () {
    var body = new URLSearchParams();
    var inputs = this.root.querySelectorAll("input[name], select[name]");
    for (var i = 0; i < inputs.length; i++) { body.append(inputs[i].name, inputs[i].value); }
    return body;
  };

  Checkout.prototype.headers = function () {
    var headers = { Accept: "application/json" };
    if (this.options.csrfToken) { headers["X-CSRFToken"] = this.options.csrfToken; }
    return headers;
  };

  Checkout.prototype.post = function (url, charge) {
    var self = this;
    if (!url) { return; }
    this.chargeButton.disabled = true;
    this.abandonButton.disabled = true;
    this.messageNode.textContent = "";
    return window.fetch(url, {
      method: "POST", headers: this.headers(), body: this.fields(), credentials: "same-origin"
    })
      .then(function (response) {
        return response.json().catch(function () { return {}; }).then(function (body) {
          if (!response.ok) {
            self.notice = (body.erro && (body.erro.mensagem || body.erro)) || self.texts.error;
            self.messageNode.textContent = self.notice;
          }
          if (body.sale_id && !self.options.saleId) { self.options.saleId = body.sale_id; }
          self.follow();  // re-read now: our own POST changed the journal
        });
      })
      .catch(function () { self.showError(); self.render(self.view); })
      .then(function () { if (charge) { self.root.dispatchEvent(new CustomEvent("smartpos:charged")); } });
  };

  Checkout.prototype.pair = function () {
    var self = this;
    if (!this.options.pairUrl) { return; }
    this.pairButton.disabled = true;
    window.fetch(this.options.pairUrl, {
      method: "POST", headers: this.headers(), body: this.fields(), credentials: "same-origin"
    })
      .then(function (response) { return response.json(); })
      .then(function (body) {
        self.options.operation = body.referencia;
        self.options.saleId = "";
        self.lastId = "";
        self.follow();
      })
      .catch(function () { self.pairButton.disabled = false; self.showError(); });
  };

  Checkout.prototype.render = function (view) {
    var t = this.texts, o = this.options;
    this.view = view;
    var status = view ? view.status : "open";
    this.root.setAttribute("data-status", status);
    this.statusNode.textContent = t[status] || status;
    this.messageNode.textContent = this.notice || "";
    this.notice = "";
    this.detailNode.textContent = "";
    this.pendenciaNode.textContent = "";
    this.qrNode.hidden = true;
    var attempt = null;
    if (view && view.type === "sale") {
      attempt = view.attempts.length ? view.attempts[view.attempts.length - 1] : null;
      this.detailNode.textContent = money(view.approved_centavos) + " / " + money(view.total_centavos);
      if (view.pendencias.length) {
        this.pendenciaNode.textContent = t.pendencia + " (" + view.pendencias.map(function (p) {
          return t["pendencia_" + p.reason] || p.reason;
        }).join(", ") + ")";
        this.root.setAttribute("data-pendencia", view.pendencias[0].reason);
      } else {
        this.root.removeAttribute("data-pendencia");
      }
    } else if (view) {
      attempt = view;
    }
    var outcome = attempt && attempt.outcome;
    if (outcome && outcome.mensagem && (status === "refused" || status === "open")) {
      this.messageNode.textContent = outcome.mensagem;
    }
    if (outcome && outcome.autorizacao && outcome.autorizacao.codigo && status === "approved") {
      this.messageNode.textContent = t.authorization + ": " + outcome.autorizacao.codigo;
    }
    if (view && view.kind === "qrcode") {
      if (status === "waiting" && view.qr_image) {
        this.qrNode.hidden = false;
        this.qrImage.src = view.qr_image;
        this.qrCaption.textContent = t.scan + " · " + t.expires + " " +
          new Date(view.expires_at).toLocaleTimeString(document.documentElement.lang || undefined);
      }
      if (status === "paired" && outcome) {
        this.messageNode.textContent = t.terminal + ": " + outcome.smartpos_id;
      }
    }
    var inProgress = view && view.type === "sale" && view.open_attempt;
    var canCharge = o.chargeUrl && (!view || (view.type === "sale" && !inProgress && view.state !== "paid"));
    this.chargeButton.hidden = !canCharge;
    this.chargeButton.disabled = false;
    this.chargeButton.textContent = view && view.attempts && view.attempts.length ? t.retry : t.charge;
    this.abandonButton.hidden = !(o.abandonUrl && inProgress);
    this.abandonButton.disabled = false;
    this.pairButton.hidden = !(o.pairUrl && (!view || view.kind !== "qrcode" || status === "expired"));
    this.pairButton.disabled = false;
    this.root.dispatchEvent(new CustomEvent("smartpos:state", { detail: view }));
  };

  function start() {
    var nodes = document.querySelectorAll("[data-smartpos-checkout]");
    for (var i = 0; i < nodes.length; i++) {
      if (!nodes[i].smartposCheckout) { nodes[i].smartposCheckout = new Checkout(nodes[i]); }
    }
  }

  window.SmartPOSCheckout = Checkout;
  window.SmartPOSCheckout.TEXTS = TEXTS;
  window.SmartPOSCheckout.start = start;
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); }
  else { start(); }
})();
