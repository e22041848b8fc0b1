//! The payer's page: `GET /pay/<token>`, a billet as its payer sees it, and
//! `GET /pay/<token>/boleto.pdf`, the printable billet. Public: no token, no authorizer, outside
//! `/v1`, on its own function and, on AWS, its own API (template.yaml, `PayerApi`).
//!
//! A request reads the link (`billets::link`: one read by the token's digest), then the billet and
//! its billing at once, and nothing else: the page shows that billet and no other data of the
//! account, but for a carnê's instalment, whose page lists its booklet's instalments (the same
//! payer's, read by key: `booklet`). An unknown or malformed token, and a billet whose billing was deleted, are the same
//! 404. Every origin IP has its own window of requests a minute (`AppState::payer_pages_per_ip`:
//! `PAYER_RATE_LIMIT_PER_IP`, 60 by default; the counters of `http::rate_limit`, apart from the
//! API's, whatever the API's own limits are), then 429 with
//! `Retry-After`. Answers carry a strict Content-Security-Policy (`page`), are not framed, not
//! indexed and send no referrer; a page is cached by the payer's browser for a minute and
//! revalidated by its `ETag`, so a paid billet shows paid within a minute.

mod booklet;
pub mod page;
mod routes;

pub use routes::app;
