//! Itaú's collection files, CNAB 240 ("Cobrança – CNAB 240", file layout 040, batch layout 030),
//! as data ([`crate::billets::layout`]): the remittance's records and the return's segments T and U, every
//! position from 1 to 240, in the manual's order. The remittance's values come by name from
//! `cnab240::remittance`, the return's go by name to `cnab_return::parse`; the fixed ones are
//! the manual's.
//! `febraban` (PyPI; tests/validators) agrees with the header's and segment P's fillers.

use super::Cnab240;
use crate::billets::layout::Kind::{A, N};
use crate::billets::layout::Source::{Blanks, Fixed, Unread, Value, Zeros};
use crate::billets::layout::{field, Record};

/// Record 0: the file header.
pub const FILE_HEADER: Record = Record {
    name: "Itaú 240 header de arquivo",
    width: 240,
    fields: &[
        field(1, 3, N, Fixed("341"), "código do banco"),
        field(4, 7, N, Fixed("0000"), "lote de serviço"),
        field(8, 8, N, Fixed("0"), "tipo de registro"),
        field(9, 17, A, Blanks, "brancos"),
        field(18, 18, N, Value("beneficiary_kind"), "tipo de inscrição da empresa"),
        field(19, 32, N, Value("beneficiary_document"), "número de inscrição da empresa"),
        field(33, 52, A, Blanks, "brancos"),
        field(53, 53, N, Zeros, "zeros"),
        field(54, 57, N, Value("agency"), "agência"),
        field(58, 58, A, Blanks, "branco"),
        field(59, 70, N, Value("account"), "conta"),
        field(71, 71, A, Blanks, "branco"),
        field(72, 72, N, Value("account_dac"), "DAC da agência/conta"),
        field(73, 102, A, Value("beneficiary_name"), "nome da empresa"),
        field(103, 132, A, Fixed("BANCO ITAU SA"), "nome do banco"),
        field(133, 142, A, Blanks, "brancos"),
        field(143, 143, N, Fixed("1"), "código remessa"),
        field(144, 151, N, Value("file_date"), "data de geração"),
        field(152, 157, N, Value("file_time"), "hora de geração"),
        field(158, 163, N, Value("sequence"), "número sequencial do arquivo"),
        field(164, 166, N, Fixed("040"), "número da versão do layout do arquivo"),
        field(167, 171, N, Zeros, "zeros"),
        field(172, 225, A, Blanks, "brancos"),
        field(226, 228, N, Zeros, "zeros"),
        field(229, 240, A, Blanks, "brancos"),
    ],
};

/// Record 1: the batch header (collection, service 01).
pub const BATCH_HEADER: Record = Record {
    name: "Itaú 240 header de lote",
    width: 240,
    fields: &[
        field(1, 3, N, Fixed("341"), "código do banco"),
        field(4, 7, N, Fixed("0001"), "lote de serviço"),
        field(8, 8, N, Fixed("1"), "tipo de registro"),
        field(9, 9, A, Fixed("R"), "tipo de operação (remessa)"),
        field(10, 11, N, Fixed("01"), "tipo de serviço (cobrança)"),
        field(12, 13, N, Zeros, "zeros"),
        field(14, 16, N, Fixed("030"), "número da versão do layout do lote"),
        field(17, 17, A, Blanks, "branco"),
        field(18, 18, N, Value("beneficiary_kind"), "tipo de inscrição da empresa"),
        field(19, 33, N, Value("beneficiary_document"), "número de inscrição da empresa"),
        field(34, 53, A, Blanks, "brancos"),
        field(54, 54, N, Zeros, "zero"),
        field(55, 58, N, Value("agency"), "agência"),
        field(59, 59, A, Blanks, "branco"),
        field(60, 71, N, Value("account"), "conta"),
        field(72, 72, A, Blanks, "branco"),
        field(73, 73, N, Value("account_dac"), "DAC da agência/conta"),
        field(74, 103, A, Value("beneficiary_name"), "nome da empresa"),
        field(104, 183, A, Blanks, "brancos"),
        field(184, 191, N, Value("sequence"), "número da remessa"),
        field(192, 199, N, Value("file_date"), "data de gravação"),
        field(200, 207, N, Zeros, "zeros"),
        field(208, 240, A, Blanks, "brancos"),
    ],
};

/// Segment P: the title (one per title, with Q and R).
pub const SEGMENT_P: Record = Record {
    name: "Itaú 240 segmento P",
    width: 240,
    fields: &[
        field(1, 3, N, Fixed("341"), "código do banco"),
        field(4, 7, N, Fixed("0001"), "lote de serviço"),
        field(8, 8, N, Fixed("3"), "tipo de registro"),
        field(9, 13, N, Value("record"), "número do registro no lote"),
        field(14, 14, A, Fixed("P"), "segmento"),
        field(15, 15, A, Blanks, "branco"),
        field(16, 17, N, Value("movement"), "código de movimento"),
        field(18, 18, N, Zeros, "zero"),
        field(19, 22, N, Value("agency"), "agência"),
        field(23, 23, A, Blanks, "branco"),
        field(24, 35, N, Value("account"), "conta"),
        field(36, 36, A, Blanks, "branco"),
        field(37, 37, N, Value("account_dac"), "DAC da agência/conta"),
        field(38, 40, N, Value("carteira"), "carteira"),
        field(41, 48, N, Value("our_number"), "nosso número"),
        field(49, 49, N, Value("our_number_dac"), "DAC do nosso número"),
        field(50, 57, A, Blanks, "brancos"),
        field(58, 62, N, Zeros, "zeros"),
        field(63, 72, A, Value("document_number"), "número do documento"),
        field(73, 77, A, Blanks, "brancos"),
        field(78, 85, N, Value("due_date"), "data de vencimento"),
        field(86, 100, N, Value("amount"), "valor do título"),
        field(101, 105, N, Zeros, "agência cobradora"),
        field(106, 106, N, Zeros, "zero"),
        field(107, 108, N, Fixed("01"), "espécie do título (duplicata mercantil)"),
        field(109, 109, A, Fixed("N"), "aceite"),
        field(110, 117, N, Value("issued_on"), "data de emissão"),
        field(118, 118, N, Zeros, "zero"),
        field(119, 126, N, Value("interest_date"), "data de juros de mora"),
        field(127, 141, N, Value("interest_per_day"), "juros de 1 dia"),
        field(142, 142, N, Zeros, "zero"),
        field(143, 195, N, Zeros, "desconto, IOF e abatimento (zeros)"),
        field(196, 220, A, Value("reference"), "identificação do título na empresa"),
        field(221, 221, N, Fixed("3"), "código de protesto (não protestar)"),
        field(222, 223, N, Zeros, "prazo de protesto"),
        field(224, 224, N, Zeros, "código de baixa"),
        field(225, 226, N, Zeros, "zeros"),
        field(227, 239, N, Zeros, "zeros"),
        field(240, 240, A, Blanks, "branco"),
    ],
};

/// Segment Q: who pays.
pub const SEGMENT_Q: Record = Record {
    name: "Itaú 240 segmento Q",
    width: 240,
    fields: &[
        field(1, 3, N, Fixed("341"), "código do banco"),
        field(4, 7, N, Fixed("0001"), "lote de serviço"),
        field(8, 8, N, Fixed("3"), "tipo de registro"),
        field(9, 13, N, Value("record"), "número do registro no lote"),
        field(14, 14, A, Fixed("Q"), "segmento"),
        field(15, 15, A, Blanks, "branco"),
        field(16, 17, N, Value("movement"), "código de movimento"),
        field(18, 18, N, Value("payer_kind"), "tipo de inscrição do pagador"),
        field(19, 33, N, Value("payer_document"), "número de inscrição do pagador"),
        field(34, 63, A, Value("payer_name"), "nome do pagador"),
        field(64, 73, A, Blanks, "brancos"),
        field(74, 113, A, Value("payer_street"), "endereço"),
        field(114, 128, A, Value("payer_district"), "bairro"),
        field(129, 136, N, Value("payer_postal_code"), "CEP"),
        field(137, 151, A, Value("payer_city"), "cidade"),
        field(152, 153, A, Value("payer_state"), "UF"),
        field(154, 154, N, Zeros, "tipo de inscrição do sacador avalista"),
        field(155, 169, N, Zeros, "número de inscrição do sacador avalista"),
        field(170, 209, A, Blanks, "nome do sacador avalista"),
        field(210, 212, N, Zeros, "zeros"),
        field(213, 240, A, Blanks, "brancos"),
    ],
};

/// Segment R: the penalty.
pub const SEGMENT_R: Record = Record {
    name: "Itaú 240 segmento R",
    width: 240,
    fields: &[
        field(1, 3, N, Fixed("341"), "código do banco"),
        field(4, 7, N, Fixed("0001"), "lote de serviço"),
        field(8, 8, N, Fixed("3"), "tipo de registro"),
        field(9, 13, N, Value("record"), "número do registro no lote"),
        field(14, 14, A, Fixed("R"), "segmento"),
        field(15, 15, A, Blanks, "branco"),
        field(16, 17, N, Value("movement"), "código de movimento"),
        field(18, 65, N, Zeros, "descontos 2 e 3 (zeros)"),
        field(66, 66, N, Value("penalty_code"), "código da multa"),
        field(67, 74, N, Value("penalty_date"), "data da multa"),
        field(75, 89, N, Value("penalty"), "valor da multa"),
        field(90, 240, A, Blanks, "brancos"),
    ],
};

/// Record 5: the batch trailer.
pub const BATCH_TRAILER: Record = Record {
    name: "Itaú 240 trailer de lote",
    width: 240,
    fields: &[
        field(1, 3, N, Fixed("341"), "código do banco"),
        field(4, 7, N, Fixed("0001"), "lote de serviço"),
        field(8, 8, N, Fixed("5"), "tipo de registro"),
        field(9, 17, A, Blanks, "brancos"),
        field(18, 23, N, Value("batch_lines"), "quantidade de registros do lote"),
        field(24, 29, N, Value("titles"), "quantidade de títulos em cobrança simples"),
        field(30, 46, N, Value("total"), "valor total dos títulos em carteira simples"),
        field(47, 115, N, Zeros, "zeros"),
        field(116, 240, A, Blanks, "brancos"),
    ],
};

/// Record 9: the file trailer.
pub const FILE_TRAILER: Record = Record {
    name: "Itaú 240 trailer de arquivo",
    width: 240,
    fields: &[
        field(1, 3, N, Fixed("341"), "código do banco"),
        field(4, 7, N, Fixed("9999"), "lote de serviço"),
        field(8, 8, N, Fixed("9"), "tipo de registro"),
        field(9, 17, A, Blanks, "brancos"),
        field(18, 23, N, Fixed("000001"), "quantidade de lotes"),
        field(24, 29, N, Value("file_lines"), "quantidade de registros do arquivo"),
        field(30, 240, A, Blanks, "brancos"),
    ],
};

/// The layout.
pub const LAYOUT: Cnab240 = Cnab240 {
    file_header: &FILE_HEADER,
    batch_header: &BATCH_HEADER,
    segments: &[&SEGMENT_P, &SEGMENT_Q, &SEGMENT_R],
    batch_trailer: &BATCH_TRAILER,
    file_trailer: &FILE_TRAILER,
    segment_t: &SEGMENT_T,
    segment_u: &SEGMENT_U,
};

/// Segment T of a return file: what the bank did with a title. What the service does not read is
/// `Unread` (the bank writes it; nothing here is checked of it).
pub const SEGMENT_T: Record = Record {
    name: "Itaú 240 segmento T (retorno)",
    width: 240,
    fields: &[
        field(1, 3, N, Unread, "código do banco"),
        field(4, 7, N, Unread, "lote de serviço"),
        field(8, 8, N, Fixed("3"), "tipo de registro"),
        field(9, 13, N, Unread, "número do registro no lote"),
        field(14, 14, A, Fixed("T"), "segmento"),
        field(15, 15, A, Unread, "branco"),
        field(16, 17, N, Value("movement"), "código de movimento"),
        field(18, 37, N, Unread, "agência, conta e DAC"),
        field(38, 40, N, Value("carteira"), "carteira"),
        field(41, 48, N, Value("our_number"), "nosso número"),
        field(49, 49, N, Value("our_number_dv"), "DAC do nosso número"),
        field(50, 58, A, Unread, "brancos"),
        field(59, 68, A, Value("document_number"), "número do documento"),
        field(69, 73, A, Unread, "brancos"),
        field(74, 81, N, Value("due_date"), "vencimento"),
        field(82, 96, N, Value("amount"), "valor do título"),
        field(97, 105, A, Unread, "banco e agência cobradores"),
        field(106, 130, A, Value("reference"), "identificação do título na empresa"),
        field(131, 198, A, Unread, "moeda, pagador e contrato"),
        field(199, 213, N, Value("fee"), "tarifa"),
        field(214, 221, A, Value("reasons"), "motivos da ocorrência"),
        field(222, 240, A, Unread, "brancos"),
    ],
};

/// Segment U of a return file: the payment's amounts and dates.
pub const SEGMENT_U: Record = Record {
    name: "Itaú 240 segmento U (retorno)",
    width: 240,
    fields: &[
        field(1, 3, N, Unread, "código do banco"),
        field(4, 7, N, Unread, "lote de serviço"),
        field(8, 8, N, Fixed("3"), "tipo de registro"),
        field(9, 13, N, Unread, "número do registro no lote"),
        field(14, 14, A, Fixed("U"), "segmento"),
        field(15, 17, A, Unread, "branco e código de movimento"),
        field(18, 32, N, Value("interest"), "juros e multa"),
        field(33, 47, N, Value("discount"), "desconto"),
        field(48, 77, N, Unread, "abatimento e IOF"),
        field(78, 92, N, Value("paid_amount"), "valor pago"),
        field(93, 107, N, Value("net_amount"), "valor líquido"),
        field(108, 137, A, Unread, "outras despesas e créditos"),
        field(138, 145, N, Value("occurred_on"), "data da ocorrência"),
        field(146, 153, N, Value("credit_on"), "data do crédito"),
        field(154, 240, A, Unread, "brancos"),
    ],
};
