//! CNAB 400 remittance files, one engine for every bank on 400: 400 characters a line,
//! CR LF between lines, upper-case ASCII text, numbers right-aligned with zeros, each line's number
//! in the file at positions 395–400.
//!
//! ```text
//! 0  header   REMESSA 01 COBRANCA, the beneficiary's agreement, the file's date and number
//! 1  detail   one per title: our number, movement, due date, amount, interest, who pays
//! 9  trailer  the last line's number
//! ```
//!
//! The records are data (`billets::layouts`), written by `billets::layout`; values by name as in
//! `billets::cnab`.

use chrono::NaiveDateTime;

use super::banks::Bank;
use super::cnab::{Beneficiary, Title, Values};
use super::layouts::Cnab400;

pub const LINE: usize = 400;

/// The remittance file of `bank` (its layout `layout`): the lines, joined by CR LF, ending in CR LF.
pub fn remittance(
    bank: &Bank,
    layout: &Cnab400,
    beneficiary: &Beneficiary,
    titles: &[Title],
    sequence: u32,
    at: NaiveDateTime,
) -> String {
    let mut common = Values::common(bank, beneficiary, sequence, at);
    let mut lines = Vec::with_capacity(titles.len() + 2);
    lines.push(common.set("line", 1).line(layout.header));
    for title in titles {
        let mut values = common.with_title(bank, &beneficiary.agreement, title);
        lines.push(values.set("line", lines.len() + 1).line(layout.detail));
    }
    lines.push(common.set("line", lines.len() + 1).line(layout.trailer));
    let mut file = lines.join("\r\n");
    file.push_str("\r\n");
    file
}
