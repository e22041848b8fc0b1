//! What every page is made of: escaped text, amounts in reais, and the one inline style, allowed
//! by its digest.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use sha2::{Digest, Sha256};

use crate::billets::printing::text::amount;
use crate::values::Money;

pub use crate::values::text::escape_html as escape;

pub(super) fn money(value: Money) -> String {
    format!("R$\u{a0}{}", amount(value))
}

pub(super) const STYLE: &str = "\
:root{color-scheme:light;--ink:#1a1a1a;--muted:#4d4d4d;--line:#d0d0d0;--accent:#0b5394;--ok:#1e6b32;--warn:#8a1c1c}\
*{box-sizing:border-box}\
body{margin:0;font:16px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,'Liberation Sans',sans-serif;color:var(--ink);background:#f4f5f7}\
main{max-width:40rem;margin:0 auto;padding:1rem}\
h1{font-size:1.35rem;margin:.25rem 0 1rem}\
h2{font-size:1.05rem;margin:0 0 .5rem}\
section{background:#fff;border:1px solid var(--line);border-radius:.5rem;padding:1rem;margin:0 0 1rem}\
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;margin:0}\
dt{color:var(--muted)}dd{margin:0;text-align:right;font-variant-numeric:tabular-nums}\
.total{display:contents}.total dt,.total dd{font-weight:700;font-size:1.15rem;color:var(--ink)}\
.code{font-family:ui-monospace,'Liberation Mono',monospace;font-size:.95rem;overflow-wrap:anywhere;background:#f4f5f7;border:1px solid var(--line);border-radius:.35rem;padding:.5rem;margin:0 0 .5rem;user-select:all}\
button,.button{display:inline-block;min-height:2.75rem;padding:.6rem 1rem;font:inherit;font-weight:600;color:#fff;background:var(--accent);border:0;border-radius:.35rem;text-decoration:none;cursor:pointer}\
button:focus-visible,.button:focus-visible{outline:3px solid #f2a900;outline-offset:2px}\
.qr{display:block;width:14rem;max-width:100%;height:auto;margin:0 auto 1rem}\
.state{font-weight:600;border-left:.35rem solid var(--warn);padding-left:.75rem}\
.state.paid{border-color:var(--ok)}\
.note{color:var(--muted);font-size:.9rem}\
#status{min-height:1.5rem;font-weight:600;color:var(--ok)}\
#card-status{min-height:1.5rem;font-weight:600;color:var(--warn)}#card-status.ok{color:var(--ok)}\
.card-field{border:1px solid var(--line);border-radius:.35rem;padding:.6rem;margin:0 0 .75rem;background:#fff}\
.card-field input{font:inherit;max-width:100%;margin:.15rem}\
@media (min-width:48rem){main{padding:2rem 1rem}.pay{display:grid;grid-template-columns:1fr 1fr;gap:1rem}.pay section{margin:0}}";

pub(super) fn digest(text: &str) -> String {
    format!("'sha256-{}'", STANDARD.encode(Sha256::digest(text.as_bytes())))
}
