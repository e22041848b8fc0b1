//! Bank billets (§2.2, §3.2, §4.3). So far: the payment documents (barcode, digitable line, Pix).

pub mod documents;
