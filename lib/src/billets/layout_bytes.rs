//! The byte-level test of every bank layout: each layout's remittance written and every
//! line held against its record (`layout::misread`). Its own file: it reads the banks, the engines and
//! the layouts, which none of them may read back.

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
            wrong.extend(
                layout::misread(record, line).into_iter().map(|w| format!("{} line {}: {w}", bank.symbol, n + 1)),
            );
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
