//! Itaú's collection files, CNAB 400 ("Cobrança – CNAB 400"), as data ([`crate::billets::layout`]):
//! the remittance's header, detail (a title) and trailer, and the return's detail, every position
//! from 1 to 400 in the manual's order. Dates here are DDMMAA.

use super::Cnab400;
use crate::billets::layout::Kind::{A, N};
use crate::billets::layout::Source::{Blanks, Fixed, Unread, Value, Zeros};
use crate::billets::layout::{field, Record};

/// Record 0: the header.
pub const HEADER: Record = Record {
    name: "Itaú 400 header",
    width: 400,
    fields: &[
        field(1, 1, N, Fixed("0"), "tipo de registro"),
        field(2, 2, N, Fixed("1"), "operação (remessa)"),
        field(3, 9, A, Fixed("REMESSA"), "literal de remessa"),
        field(10, 11, N, Fixed("01"), "código do serviço"),
        field(12, 26, A, Fixed("COBRANCA"), "literal de serviço"),
        field(27, 30, N, Value("agency"), "agência"),
        field(31, 32, N, Zeros, "zeros"),
        field(33, 37, N, Value("account"), "conta"),
        field(38, 38, N, Value("account_dac"), "DAC da agência/conta"),
        field(39, 46, A, Blanks, "brancos"),
        field(47, 76, A, Value("beneficiary_name"), "nome da empresa"),
        field(77, 79, N, Fixed("341"), "código do banco"),
        field(80, 94, A, Fixed("BANCO ITAU SA"), "nome do banco"),
        field(95, 100, N, Value("file_date_short"), "data de geração"),
        field(101, 394, A, Blanks, "brancos"),
        field(395, 400, N, Value("line"), "número sequencial"),
    ],
};

/// Record 1: a title.
pub const DETAIL: Record = Record {
    name: "Itaú 400 detalhe",
    width: 400,
    fields: &[
        field(1, 1, N, Fixed("1"), "tipo de registro"),
        field(2, 3, N, Value("beneficiary_kind"), "código de inscrição da empresa"),
        field(4, 17, N, Value("beneficiary_document"), "número de inscrição da empresa"),
        field(18, 21, N, Value("agency"), "agência"),
        field(22, 23, N, Zeros, "zeros"),
        field(24, 28, N, Value("account"), "conta"),
        field(29, 29, N, Value("account_dac"), "DAC da agência/conta"),
        field(30, 33, A, Blanks, "brancos"),
        field(34, 37, N, Zeros, "instrução/alegação a ser cancelada"),
        field(38, 62, A, Value("reference"), "uso da empresa"),
        field(63, 70, N, Value("our_number"), "nosso número"),
        field(71, 83, N, Zeros, "quantidade de moeda"),
        field(84, 86, N, Value("carteira"), "número da carteira"),
        field(87, 107, A, Blanks, "uso do banco"),
        field(108, 108, A, Fixed("I"), "código da carteira"),
        field(109, 110, N, Value("movement"), "código de ocorrência"),
        field(111, 120, A, Value("document_number"), "número do documento"),
        field(121, 126, N, Value("due_date_short"), "vencimento"),
        field(127, 139, N, Value("amount"), "valor do título"),
        field(140, 142, N, Fixed("341"), "código do banco"),
        field(143, 147, N, Zeros, "agência cobradora"),
        field(148, 149, A, Fixed("01"), "espécie (duplicata mercantil)"),
        field(150, 150, A, Fixed("N"), "aceite"),
        field(151, 156, N, Value("issued_on_short"), "data de emissão"),
        field(157, 158, A, Fixed("00"), "instrução 1"),
        field(159, 160, A, Fixed("00"), "instrução 2"),
        field(161, 173, N, Value("interest_per_day"), "juros de 1 dia"),
        field(174, 179, N, Zeros, "desconto até"),
        field(180, 192, N, Zeros, "valor do desconto"),
        field(193, 205, N, Zeros, "valor do IOF"),
        field(206, 218, N, Zeros, "abatimento"),
        field(219, 220, N, Value("payer_kind"), "código de inscrição do pagador"),
        field(221, 234, N, Value("payer_document"), "número de inscrição do pagador"),
        field(235, 264, A, Value("payer_name"), "nome do pagador"),
        field(265, 274, A, Blanks, "brancos"),
        field(275, 314, A, Value("payer_street"), "logradouro"),
        field(315, 326, A, Value("payer_district"), "bairro"),
        field(327, 334, N, Value("payer_postal_code"), "CEP"),
        field(335, 349, A, Value("payer_city"), "cidade"),
        field(350, 351, A, Value("payer_state"), "estado"),
        field(352, 381, A, Blanks, "sacador/avalista"),
        field(382, 385, A, Blanks, "brancos"),
        field(386, 391, N, Value("interest_date_short"), "data de mora"),
        field(392, 393, N, Zeros, "prazo"),
        field(394, 394, A, Blanks, "branco"),
        field(395, 400, N, Value("line"), "número sequencial"),
    ],
};

/// Record 9: the trailer.
pub const TRAILER: Record = Record {
    name: "Itaú 400 trailer",
    width: 400,
    fields: &[
        field(1, 1, N, Fixed("9"), "tipo de registro"),
        field(2, 394, A, Blanks, "brancos"),
        field(395, 400, N, Value("line"), "número sequencial"),
    ],
};

/// Record 1 of a return: what the bank did with a title.
pub const RETURN_DETAIL: Record = Record {
    name: "Itaú 400 detalhe (retorno)",
    width: 400,
    fields: &[
        field(1, 1, N, Fixed("1"), "tipo de registro"),
        field(2, 37, A, Unread, "inscrição, agência, conta e brancos"),
        field(38, 62, A, Value("reference"), "uso da empresa"),
        field(63, 70, N, Value("our_number"), "nosso número"),
        field(71, 93, A, Unread, "brancos, carteira e nosso número"),
        field(94, 94, A, Value("our_number_dv"), "DAC do nosso número"),
        field(95, 108, A, Unread, "brancos e código da carteira"),
        field(109, 110, N, Value("movement"), "código de ocorrência"),
        field(111, 116, N, Value("occurred_on"), "data de ocorrência"),
        field(117, 126, A, Value("document_number"), "número do documento"),
        field(127, 146, A, Unread, "nosso número e brancos"),
        field(147, 152, N, Value("due_date"), "vencimento"),
        field(153, 165, N, Value("amount"), "valor do título"),
        field(166, 175, A, Unread, "banco, agência cobradora e espécie"),
        field(176, 188, N, Value("fee"), "tarifa de cobrança"),
        field(189, 240, A, Unread, "brancos, IOF e abatimento"),
        field(241, 253, N, Value("discount"), "descontos"),
        field(254, 266, N, Value("paid_amount"), "valor principal"),
        field(267, 279, N, Value("interest"), "juros de mora e multa"),
        field(280, 295, A, Unread, "outros créditos, DDA e brancos"),
        field(296, 301, N, Value("credit_on"), "data do crédito"),
        field(302, 377, A, Unread, "instrução cancelada, pagador e brancos"),
        field(378, 385, A, Value("reasons"), "erros e mensagem informativa"),
        field(386, 400, A, Unread, "brancos, liquidação e sequencial"),
    ],
};

/// The layout.
pub const LAYOUT: Cnab400 =
    Cnab400 { header: &HEADER, detail: &DETAIL, trailer: &TRAILER, return_detail: &RETURN_DETAIL };
