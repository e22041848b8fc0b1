//! Each bank's collection files as data (issue 43): its remittance's records and its return's, every
//! position of each line in one field, in the order of the bank's manual (`billets::layout`). The
//! bank's rules (check digits, free field, codes) are beside, in `billets::banks`.
//!
//! Where banks follow FEBRABAN's "Layout Padrão 240" to the letter (segments Q and R, the
//! trailers), the record is written once here, in [`febraban240`], and each bank's layout names it;
//! where a bank departs (its header, segment P, its return's T), its file has its own.
//!
//! The values the records name are given by the engines: the beneficiary's (`beneficiary_kind`,
//! `beneficiary_document`, `beneficiary_name`), the agreement's parts (`billets::banks::Rules`), the
//! file's (`file_date`, `file_time`, `sequence`), each title's (`movement`, `our_number`, …,
//! `payer_*`), the counts (`record`, `batch_lines`, `titles`, `total`, `file_lines`, `line`).

use super::layout::Record;

pub mod banco_do_brasil240;
pub mod bradesco240;
pub mod bradesco400;
pub mod caixa240;
pub mod febraban240;
pub mod itau240;
pub mod itau400;
pub mod santander240;
pub mod sicoob240;

/// A CNAB 240 layout: the remittance's records, and the return's segments T and U.
pub struct Cnab240 {
    pub file_header: &'static Record,
    pub batch_header: &'static Record,
    /// The segments of each title, in order (P, Q, R).
    pub segments: &'static [&'static Record],
    pub batch_trailer: &'static Record,
    pub file_trailer: &'static Record,
    pub segment_t: &'static Record,
    pub segment_u: &'static Record,
}

impl Cnab240 {
    /// Every record of the remittance.
    pub fn remittance_records(&self) -> Vec<&'static Record> {
        let mut all = vec![self.file_header, self.batch_header];
        all.extend(self.segments);
        all.extend([self.batch_trailer, self.file_trailer]);
        all
    }
}

/// A CNAB 400 layout: the remittance's header, title (detail) and trailer, and the return's title.
pub struct Cnab400 {
    pub header: &'static Record,
    pub detail: &'static Record,
    pub trailer: &'static Record,
    pub return_detail: &'static Record,
}

#[cfg(test)]
mod tests {
    use crate::billets::banks::{Files, ALL};
    use crate::billets::cnab::{Beneficiary, Movement, Payer, Title};
    use crate::billets::layout::{self, Record};
    use crate::billets::{cnab240, cnab400};
    use crate::values::Money;

    fn titles(bank: &crate::billets::banks::Bank, beneficiary: &Beneficiary) -> Vec<Title> {
        let our = |n| bank.rules.our_number(&beneficiary.agreement, n).unwrap();
        let title = Title {
            movement: Movement::Register,
            our_number: our(1),
            document_number: "0000000012".into(),
            due_date: "2030-03-04".parse().unwrap(),
            amount: Money::parse("150.00").unwrap(),
            issued_on: "2030-02-01".parse().unwrap(),
            interest_per_day: Money::parse("0.05").unwrap(),
            penalty: Money::parse("3.00").unwrap(),
            payer: Payer {
                document: "52998224725".into(),
                name: "Maria da Conceição Silva, Jr.".into(),
                street: "Avenida Paulista, 1000 – ap. 12".into(),
                district: "Bela Vista".into(),
                postal_code: "01310100".into(),
                city: "São Paulo".into(),
                state: "SP".into(),
            },
            reference: "00000000120000000034".into(),
        };
        let plain = Title {
            our_number: our(2),
            amount: Money::parse("80.10").unwrap(),
            interest_per_day: Money::default(),
            penalty: Money::default(),
            ..title.clone()
        };
        let off = Title { movement: Movement::WriteOff, our_number: our(3), ..title.clone() };
        vec![title, plain, off]
    }

    /// Every line of every layout's remittance, held against its record: 240 or 400 characters of
    /// ASCII, CR LF, fillers as the layout says (a blank where a zero belongs fails), numeric fields
    /// digits, text upper case without accents; and every record covers its positions once.
    #[test]
    fn every_layout_writes_every_record_as_it_describes() {
        for bank in ALL {
            let beneficiary = Beneficiary {
                document: "11222333000181".into(),
                name: "Clínica Exemplo Ltda.".into(),
                agreement: bank.agreement(bank.agreement_example).unwrap(),
            };
            let titles = titles(bank, &beneficiary);
            let at = "2030-02-01T10:11:12".parse().unwrap();
            let (file, records): (String, Vec<&Record>) = match bank.files {
                Files::Cnab240(l) => {
                    let file = cnab240::remittance(bank, l, &beneficiary, &titles, 7, at);
                    let mut records = vec![l.file_header, l.batch_header];
                    for _ in &titles {
                        records.extend(l.segments);
                    }
                    records.extend([l.batch_trailer, l.file_trailer]);
                    for record in l.remittance_records().into_iter().chain([l.segment_t, l.segment_u]) {
                        assert_eq!(layout::gaps(record), None, "{}", bank.symbol);
                    }
                    (file, records)
                }
                Files::Cnab400(l) => {
                    let file = cnab400::remittance(bank, l, &beneficiary, &titles, 7, at);
                    let mut records = vec![l.header];
                    records.extend(titles.iter().map(|_| l.detail));
                    records.push(l.trailer);
                    for record in [l.header, l.detail, l.trailer, l.return_detail] {
                        assert_eq!(layout::gaps(record), None, "{}", bank.symbol);
                    }
                    (file, records)
                }
            };
            assert!(file.ends_with("\r\n") && !file.contains("\r\n\r\n"), "{}", bank.symbol);
            let lines: Vec<&str> = file.strip_suffix("\r\n").unwrap().split("\r\n").collect();
            assert_eq!(lines.len(), records.len(), "{}", bank.symbol);
            let mut wrong = Vec::new();
            for (n, (line, record)) in lines.iter().zip(&records).enumerate() {
                assert!(!line.contains('\n') && !line.contains('\r'));
                assert_eq!(line.len(), bank.width(), "{} line {}", bank.symbol, n + 1);
                wrong.extend(layout::misread(record, line).into_iter().map(|w| format!("{} line {}: {w}", bank.symbol, n + 1)));
                assert!(!line.bytes().any(|b| b.is_ascii_lowercase()), "{} line {}: {line}", bank.symbol, n + 1);
            }
            assert_eq!(wrong, Vec::<String>::new());
            let text = lines.join("");
            assert!(text.contains("MARIA DA CONCEICAO SILVA JR"), "{}: {text}", bank.symbol);
            assert!(text.contains(&bank.code.to_string()));
        }
    }

    /// A blank where the layout wants zeros is told, by field and position.
    #[test]
    fn a_blank_filler_fails() {
        let record = crate::billets::layouts::itau240::FILE_HEADER;
        let bank = &crate::billets::banks::itau::ITAU_240;
        let beneficiary = Beneficiary {
            document: "11222333000181".into(),
            name: "Clínica".into(),
            agreement: bank.agreement(bank.agreement_example).unwrap(),
        };
        let Files::Cnab240(l) = bank.files else { unreachable!() };
        let file = cnab240::remittance(bank, l, &beneficiary, &[], 1, "2030-02-01T10:11:12".parse().unwrap());
        let mut header = file.split("\r\n").next().unwrap().to_owned();
        for (from, to) in [(53, 53), (167, 171), (226, 228)] {
            assert!(header[from - 1..to].bytes().all(|b| b == b'0'));
        }
        header.replace_range(166..171, "     ");
        assert_eq!(layout::misread(&record, &header), ["167-171 zeros (N Zeros): \"     \""]);
    }
}
