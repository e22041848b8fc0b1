//! Bradesco's collection files, CNAB 400 ("Cobrança Bradesco – Layout de arquivo CNAB 400"), as
//! data ([`crate::billets::layout`]): the remittance's header, detail (type 1) and trailer, and the
//! return's detail, every position from 1 to 400 in the manual's order. Dates are DDMMAA. The
//! beneficiary emits the slip (condição de emissão 2), so the our number and its digit are ours.

use super::Cnab400;
use crate::billets::layout::Kind::{A, N};
use crate::billets::layout::Source::{Blanks, Fixed, Unread, Value, Zeros};
use crate::billets::layout::{field, Record};

/// Record 0: the header.
pub const HEADER: Record = Record {
    name: "Bradesco 400 header",
    width: 400,
    fields: &[
        field(1, 1, N, Fixed("0"), "identificação do registro"),
        field(2, 2, N, Fixed("1"), "identificação do arquivo remessa"),
        field(3, 9, A, Fixed("REMESSA"), "literal remessa"),
        field(10, 11, N, Fixed("01"), "código de serviço"),
        field(12, 26, A, Fixed("COBRANCA"), "literal serviço"),
        field(27, 46, N, Value("convenio"), "código da empresa"),
        field(47, 76, A, Value("beneficiary_name"), "nome da empresa"),
        field(77, 79, N, Fixed("237"), "número do Bradesco na câmara de compensação"),
        field(80, 94, A, Fixed("BRADESCO"), "nome do banco por extenso"),
        field(95, 100, N, Value("file_date_short"), "data da gravação do arquivo"),
        field(101, 108, A, Blanks, "branco"),
        field(109, 110, A, Fixed("MX"), "identificação do sistema"),
        field(111, 117, N, Value("sequence"), "número sequencial de remessa"),
        field(118, 394, A, Blanks, "branco"),
        field(395, 400, N, Value("line"), "número sequencial do registro"),
    ],
};

/// Record 1: a title.
pub const DETAIL: Record = Record {
    name: "Bradesco 400 detalhe",
    width: 400,
    fields: &[
        field(1, 1, N, Fixed("1"), "identificação do registro"),
        field(2, 6, N, Zeros, "agência de débito"),
        field(7, 7, N, Zeros, "dígito da agência de débito"),
        field(8, 12, N, Zeros, "razão da conta corrente de débito"),
        field(13, 19, N, Zeros, "conta corrente de débito"),
        field(20, 20, N, Zeros, "dígito da conta corrente de débito"),
        field(21, 21, N, Zeros, "identificação da empresa no banco: zero"),
        field(22, 24, N, Value("carteira"), "identificação da empresa no banco: carteira"),
        field(25, 29, N, Value("agency"), "identificação da empresa no banco: agência"),
        field(30, 36, N, Value("account"), "identificação da empresa no banco: conta corrente"),
        field(37, 37, A, Value("account_dv"), "identificação da empresa no banco: dígito da conta"),
        field(38, 62, A, Value("reference"), "número de controle do participante"),
        field(63, 65, N, Zeros, "código do banco a ser debitado"),
        field(66, 66, N, Value("penalty_code_percent"), "campo de multa"),
        field(67, 70, N, Value("penalty_percent"), "percentual de multa"),
        field(71, 81, N, Value("our_number"), "identificação do título no banco"),
        field(82, 82, A, Value("our_number_dv"), "dígito de auto conferência do número bancário"),
        field(83, 92, N, Zeros, "desconto bonificação por dia"),
        field(93, 93, N, Fixed("2"), "condição para emissão do boleto (cliente emite)"),
        field(94, 94, A, Fixed("N"), "identificação se emite boleto para débito automático"),
        field(95, 104, A, Blanks, "identificação da operação do banco"),
        field(105, 105, A, Blanks, "indicador de rateio de crédito"),
        field(106, 106, N, Fixed("2"), "endereçamento para aviso do débito automático"),
        field(107, 108, A, Blanks, "quantidade de pagamentos"),
        field(109, 110, N, Value("movement"), "identificação da ocorrência"),
        field(111, 120, A, Value("document_number"), "número do documento"),
        field(121, 126, N, Value("due_date_short"), "data do vencimento do título"),
        field(127, 139, N, Value("amount"), "valor do título"),
        field(140, 142, N, Zeros, "banco encarregado da cobrança"),
        field(143, 147, N, Zeros, "agência depositária"),
        field(148, 149, N, Fixed("01"), "espécie de título (duplicata mercantil)"),
        field(150, 150, A, Fixed("N"), "identificação (aceite)"),
        field(151, 156, N, Value("issued_on_short"), "data da emissão do título"),
        field(157, 158, N, Zeros, "1ª instrução"),
        field(159, 160, N, Zeros, "2ª instrução"),
        field(161, 173, N, Value("interest_per_day"), "valor a ser cobrado por dia de atraso"),
        field(174, 179, N, Zeros, "data limite para concessão de desconto"),
        field(180, 192, N, Zeros, "valor do desconto"),
        field(193, 205, N, Zeros, "valor do IOF"),
        field(206, 218, N, Zeros, "valor do abatimento"),
        field(219, 220, N, Value("payer_kind"), "identificação do tipo de inscrição do pagador"),
        field(221, 234, N, Value("payer_document"), "número de inscrição do pagador"),
        field(235, 274, A, Value("payer_name"), "nome do pagador"),
        field(275, 314, A, Value("payer_street"), "endereço completo"),
        field(315, 326, A, Blanks, "1ª mensagem"),
        field(327, 334, N, Value("payer_postal_code"), "CEP e sufixo do CEP"),
        field(335, 394, A, Blanks, "sacador/avalista ou 2ª mensagem"),
        field(395, 400, N, Value("line"), "número sequencial do registro"),
    ],
};

/// Record 9: the trailer.
pub const TRAILER: Record = Record {
    name: "Bradesco 400 trailer",
    width: 400,
    fields: &[
        field(1, 1, N, Fixed("9"), "identificação do registro"),
        field(2, 394, A, Blanks, "branco"),
        field(395, 400, N, Value("line"), "número sequencial do registro"),
    ],
};

/// Record 1 of a return: what the bank did with a title.
pub const RETURN_DETAIL: Record = Record {
    name: "Bradesco 400 detalhe (retorno)",
    width: 400,
    fields: &[
        field(1, 1, N, Fixed("1"), "identificação do registro"),
        field(2, 37, A, Unread, "inscrição da empresa e identificação da empresa no banco"),
        field(38, 62, A, Value("reference"), "número de controle do participante"),
        field(63, 70, A, Unread, "zeros"),
        field(71, 81, N, Value("our_number"), "identificação do título no banco"),
        field(82, 82, A, Value("our_number_dv"), "dígito do nosso número"),
        field(83, 108, A, Unread, "uso do banco, rateio, pagamento parcial e carteira"),
        field(109, 110, N, Value("movement"), "identificação de ocorrência"),
        field(111, 116, N, Value("occurred_on"), "data da ocorrência no banco"),
        field(117, 126, A, Value("document_number"), "número do documento"),
        field(127, 146, A, Unread, "identificação do título no banco"),
        field(147, 152, N, Value("due_date"), "data do vencimento do título"),
        field(153, 165, N, Value("amount"), "valor do título"),
        field(166, 175, A, Unread, "banco cobrador, agência cobradora e espécie"),
        field(176, 188, N, Value("fee"), "despesas de cobrança"),
        field(189, 240, A, Unread, "outras despesas, juros da operação, IOF e abatimento"),
        field(241, 253, N, Value("discount"), "desconto concedido"),
        field(254, 266, N, Value("paid_amount"), "valor pago"),
        field(267, 279, N, Value("interest"), "juros de mora"),
        field(280, 295, A, Unread, "outros créditos, brancos e motivo"),
        field(296, 301, N, Value("credit_on"), "data do crédito"),
        field(302, 318, A, Unread, "origem do pagamento, brancos e cheque"),
        field(319, 328, A, Value("reasons"), "motivos das rejeições"),
        field(329, 400, A, Unread, "brancos, cartório, protocolo e sequencial"),
    ],
};

/// The layout.
pub const LAYOUT: Cnab400 =
    Cnab400 { header: &HEADER, detail: &DETAIL, trailer: &TRAILER, return_detail: &RETURN_DETAIL };
