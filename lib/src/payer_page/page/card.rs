//! The card checkout of a payable billet, and the page where the payer of a schedule's billing
//! saves a card for the next ones: each page, its script and its Content-Security-Policy, which
//! admits the gateway's origins alone.

use super::html::{digest, escape, money, STYLE};
use super::Due;
use crate::billets::model::BankBillet;
use crate::billets::printing::text::date;

/// The card checkout's script: asks the page's own route for the day's intent, mounts the
/// gateway's card field (Stripe.js in Portuguese: the card goes from the payer's browser to the
/// gateway alone), confirms the payment with the gateway, then tells the page's route, which reads
/// it back from the gateway. A refusal is said in plain Portuguese by its decline code (Stripe's
/// `decline_code`, else its `code`: insufficient funds, expired, incorrect CVC, refused by the
/// issuer) and the button is given back: the intent takes another card, as Stripe's does.
const CARD_SCRIPT: &str = "\
(function(){\
var form=document.getElementById('card-form'),say=document.getElementById('card-status'),pay=document.getElementById('pay');\
var base=location.pathname.replace(/\\/$/,''),stripe=null,card=null,opened=null;\
function show(t,ok){say.textContent=t;say.className=ok?'ok':'';}\
var WORDS={insufficient_funds:'Cartão recusado: saldo ou limite insuficiente. Tente outro cartão.',\
expired_card:'Cartão recusado: está vencido. Confira a validade ou use outro cartão.',\
incorrect_cvc:'Cartão recusado: o código de segurança (CVC) está incorreto. Confira e tente de novo.',\
processing_error:'Não foi possível processar o cartão agora. Tente de novo em instantes.',\
card_declined:'Cartão recusado pelo banco emissor. Tente outro cartão ou fale com o seu banco.'};\
function refused(e){e=e||{};return WORDS[e.decline_code]||WORDS[e.code]||(e.type==='validation_error'&&e.message)||'O pagamento não foi aprovado. Tente outro cartão.';}\
function json(r){return r.json().then(function(b){return{status:r.status,body:b};});}\
fetch(base,{method:'POST'}).then(json).then(function(a){\
if(a.status!==200){show(a.body.message||'Pagamento com cartão indisponível.');return;}\
opened=a.body;stripe=Stripe(opened.publishable_key,{locale:'pt-BR'});card=stripe.elements().create('card');card.mount('#card-element');pay.disabled=false;\
}).catch(function(){show('Não foi possível abrir o pagamento com cartão. Tente novamente.');});\
form.addEventListener('submit',function(e){e.preventDefault();if(!opened)return;pay.disabled=true;show('Processando o pagamento…');\
stripe.confirmCardPayment(opened.client_secret,{payment_method:{card:card}}).then(function(r){\
if(r.error){show(refused(r.error));pay.disabled=false;return;}\
return fetch(base+'/'+encodeURIComponent(opened.intent),{method:'POST'}).then(json).then(function(a){\
var done=a.body.stage==='succeeded'||a.body.stage==='authorized';show(a.body.message,done);if(done){form.hidden=true;}else{pay.disabled=false;}});\
}).catch(function(){show('Não foi possível concluir o pagamento. Tente novamente.');pay.disabled=false;});});\
})();";

/// The card checkout of a payable billet: what is due today, the gateway's card field, one
/// button. `gateway_js` is the gateway's script (Stripe.js); `back` the billet's page.
pub fn card(billet: &BankBillet, due: &Due, gateway_js: &str, back: &str) -> String {
    let recipient = escape(&billet.recipient.recipient_full_name);
    format!(
        "<!doctype html><html lang=\"pt-BR\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <meta name=\"robots\" content=\"noindex,nofollow\"><meta name=\"referrer\" content=\"no-referrer\">\
         <link rel=\"icon\" href=\"data:,\"><title>Pagar com cartão – {recipient}</title><style>{STYLE}</style></head>\
         <body><main><h1>Pagar com cartão</h1>\
         <section aria-labelledby=\"due\"><h2 id=\"due\">Cobrança de {recipient}</h2><dl>\
         <dt>Vencimento</dt><dd>{}</dd><div class=\"total\"><dt>Total hoje</dt><dd>{}</dd></div></dl></section>\
         <section aria-labelledby=\"card-title\"><h2 id=\"card-title\">Dados do cartão</h2>\
         <form id=\"card-form\"><div id=\"card-element\" class=\"card-field\"></div>\
         <p><button id=\"pay\" type=\"submit\" disabled>Pagar {}</button></p></form>\
         <p id=\"card-status\" role=\"status\" aria-live=\"polite\"></p>\
         <p class=\"note\">Os dados do cartão vão direto para o processador de pagamentos; este site não os recebe.</p>\
         </section><p><a href=\"{}\">Voltar ao boleto e ao Pix</a></p></main>\
         <script src=\"{}\"></script><script>{CARD_SCRIPT}</script></body></html>",
        date(billet.due_date),
        money(due.total),
        money(due.total),
        escape(back),
        escape(gateway_js),
    )
}

/// The card-saving page's script: asks the page's own route for a SetupIntent of the schedule,
/// mounts the gateway's card field, confirms the setup with the gateway (the card goes from the
/// payer's browser to the gateway alone), then tells the page's route, which reads it back.
const SAVE_SCRIPT: &str = "\
(function(){\
var form=document.getElementById('card-form'),say=document.getElementById('card-status'),save=document.getElementById('save');\
var base=location.pathname.replace(/\\/$/,''),stripe=null,card=null,opened=null;\
function show(t,ok){say.textContent=t;say.className=ok?'ok':'';}\
function json(r){return r.json().then(function(b){return{status:r.status,body:b};});}\
fetch(base,{method:'POST'}).then(json).then(function(a){\
if(a.status!==200){show(a.body.message||'Não é possível salvar um cartão agora.');return;}\
opened=a.body;stripe=Stripe(opened.publishable_key,{locale:'pt-BR'});card=stripe.elements().create('card');card.mount('#card-element');save.disabled=false;\
}).catch(function(){show('Não foi possível abrir o cadastro do cartão. Tente novamente.');});\
form.addEventListener('submit',function(e){e.preventDefault();if(!opened)return;save.disabled=true;show('Salvando o cartão…');\
stripe.confirmCardSetup(opened.client_secret,{payment_method:{card:card}}).then(function(r){\
if(r.error){show('O cartão não foi aceito. Confira os dados ou use outro cartão.');save.disabled=false;return;}\
return fetch(base+'/'+encodeURIComponent(opened.setup),{method:'POST'}).then(json).then(function(a){\
show(a.body.message,a.body.saved);if(a.body.saved){form.hidden=true;}else{save.disabled=false;}});\
}).catch(function(){show('Não foi possível salvar o cartão. Tente novamente.');save.disabled=false;});});\
})();";

/// The page where the payer saves a card for the schedule's next billings. `gateway_js` is the
/// gateway's script (Stripe.js); `back` the billet's page.
pub fn save_card(billet: &BankBillet, gateway_js: &str, back: &str) -> String {
    let recipient = escape(&billet.recipient.recipient_full_name);
    format!(
        "<!doctype html><html lang=\"pt-BR\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <meta name=\"robots\" content=\"noindex,nofollow\"><meta name=\"referrer\" content=\"no-referrer\">\
         <link rel=\"icon\" href=\"data:,\"><title>Salvar cartão – {recipient}</title><style>{STYLE}</style></head>\
         <body><main><h1>Salvar um cartão para as próximas cobranças</h1>\
         <section aria-labelledby=\"card-title\"><h2 id=\"card-title\">Cobranças recorrentes de {recipient}</h2>\
         <p>As próximas cobranças desta assinatura serão pagas com este cartão quando forem emitidas. \
         Se o cartão for recusado, você recebe o aviso com o link para pagar de outro jeito.</p>\
         <form id=\"card-form\"><div id=\"card-element\" class=\"card-field\"></div>\
         <p><button id=\"save\" type=\"submit\" disabled>Salvar cartão</button></p></form>\
         <p id=\"card-status\" role=\"status\" aria-live=\"polite\"></p>\
         <p class=\"note\">Os dados do cartão vão direto para o processador de pagamentos; este site não os recebe.</p>\
         </section><p><a href=\"{}\">Voltar ao boleto e ao Pix</a></p></main>\
         <script src=\"{}\"></script><script>{SAVE_SCRIPT}</script></body></html>",
        escape(back),
        escape(gateway_js),
    )
}

/// The card-saving page's Content-Security-Policy: as the checkout's, with its own script.
pub fn save_card_policy(gateway: &[String]) -> String {
    policy(gateway, SAVE_SCRIPT)
}

/// The card checkout's Content-Security-Policy: the page's style and script, and exactly the
/// gateway's origins (`gateway`: its script's origin, its API's, and where it frames 3-D Secure):
/// script and frames from the script's origin, requests to the page itself and the gateway.
pub fn card_policy(gateway: &[String]) -> String {
    policy(gateway, CARD_SCRIPT)
}

fn policy(gateway: &[String], script: &str) -> String {
    let gateway = gateway.join(" ");
    format!(
        "default-src 'none'; style-src {}; script-src {} {gateway}; connect-src 'self' {gateway}; \
         frame-src {gateway}; img-src data: {gateway}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        digest(STYLE),
        digest(script),
    )
}
