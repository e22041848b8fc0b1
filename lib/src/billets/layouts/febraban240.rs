//! FEBRABAN's "Layout Padrão 240" for collection (cobrança, service 01; v10.x), the records banks
//! on 240 take as FEBRABAN writes them: the file and batch headers, segments P, Q and R, the
//! trailers, and the return's T and U. A bank's own layout (`bradesco240`, `banco_do_brasil240`,
//! `sicoob240`, `santander240`, `caixa240`) names these records, or its own where its manual departs.
//! What differs from bank to bank inside a FEBRABAN field comes as a value its rules compute
//! (`bank_code`, `bank_name`, `file_layout`, `batch_layout`, `header_convenio`, `batch_convenio`,
//! `title_id`, `carteira_code`, `agency_account_dv`).

use crate::billets::layout::Kind::{A, N};
use crate::billets::layout::Source::{Blanks, Fixed, Unread, Value, Zeros};
use crate::billets::layout::{field, Record};

/// Record 0: the file header.
pub const FILE_HEADER: Record = Record {
    name: "FEBRABAN 240 header de arquivo",
    width: 240,
    fields: &[
        field(1, 3, N, Value("bank_code"), "código do banco na compensação"),
        field(4, 7, N, Fixed("0000"), "lote de serviço"),
        field(8, 8, N, Fixed("0"), "tipo de registro"),
        field(9, 17, A, Blanks, "uso exclusivo FEBRABAN"),
        field(18, 18, N, Value("beneficiary_kind"), "tipo de inscrição da empresa"),
        field(19, 32, N, Value("beneficiary_document"), "número de inscrição da empresa"),
        field(33, 52, A, Value("header_convenio"), "código do convênio no banco"),
        field(53, 57, N, Value("agency"), "agência mantenedora da conta"),
        field(58, 58, A, Value("agency_dv"), "dígito verificador da agência"),
        field(59, 70, N, Value("account"), "número da conta corrente"),
        field(71, 71, A, Value("account_dv"), "dígito verificador da conta"),
        field(72, 72, A, Value("agency_account_dv"), "dígito verificador da agência/conta"),
        field(73, 102, A, Value("beneficiary_name"), "nome da empresa"),
        field(103, 132, A, Value("bank_name"), "nome do banco"),
        field(133, 142, A, Blanks, "uso exclusivo FEBRABAN"),
        field(143, 143, N, Fixed("1"), "código remessa"),
        field(144, 151, N, Value("file_date"), "data de geração do arquivo"),
        field(152, 157, N, Value("file_time"), "hora de geração do arquivo"),
        field(158, 163, N, Value("sequence"), "número sequencial do arquivo"),
        field(164, 166, N, Value("file_layout"), "número da versão do layout do arquivo"),
        field(167, 171, N, Zeros, "densidade de gravação do arquivo"),
        field(172, 191, A, Blanks, "para uso reservado do banco"),
        field(192, 211, A, Blanks, "para uso reservado da empresa"),
        field(212, 240, A, Blanks, "uso exclusivo FEBRABAN"),
    ],
};

/// Record 1: the batch header (collection, service 01).
pub const BATCH_HEADER: Record = Record {
    name: "FEBRABAN 240 header de lote",
    width: 240,
    fields: &[
        field(1, 3, N, Value("bank_code"), "código do banco na compensação"),
        field(4, 7, N, Fixed("0001"), "lote de serviço"),
        field(8, 8, N, Fixed("1"), "tipo de registro"),
        field(9, 9, A, Fixed("R"), "tipo de operação (remessa)"),
        field(10, 11, N, Fixed("01"), "tipo de serviço (cobrança)"),
        field(12, 13, A, Blanks, "uso exclusivo FEBRABAN"),
        field(14, 16, N, Value("batch_layout"), "número da versão do layout do lote"),
        field(17, 17, A, Blanks, "uso exclusivo FEBRABAN"),
        field(18, 18, N, Value("beneficiary_kind"), "tipo de inscrição da empresa"),
        field(19, 33, N, Value("beneficiary_document"), "número de inscrição da empresa"),
        field(34, 53, A, Value("batch_convenio"), "código do convênio no banco"),
        field(54, 58, N, Value("agency"), "agência mantenedora da conta"),
        field(59, 59, A, Value("agency_dv"), "dígito verificador da agência"),
        field(60, 71, N, Value("account"), "número da conta corrente"),
        field(72, 72, A, Value("account_dv"), "dígito verificador da conta"),
        field(73, 73, A, Value("agency_account_dv"), "dígito verificador da agência/conta"),
        field(74, 103, A, Value("beneficiary_name"), "nome da empresa"),
        field(104, 143, A, Blanks, "mensagem 1"),
        field(144, 183, A, Blanks, "mensagem 2"),
        field(184, 191, N, Value("sequence"), "número remessa/retorno"),
        field(192, 199, N, Value("file_date"), "data de gravação remessa/retorno"),
        field(200, 207, N, Zeros, "data do crédito"),
        field(208, 240, A, Blanks, "uso exclusivo FEBRABAN"),
    ],
};

/// Segment P: the title.
pub const SEGMENT_P: Record = Record {
    name: "FEBRABAN 240 segmento P",
    width: 240,
    fields: &[
        field(1, 3, N, Value("bank_code"), "código do banco na compensação"),
        field(4, 7, N, Fixed("0001"), "lote de serviço"),
        field(8, 8, N, Fixed("3"), "tipo de registro"),
        field(9, 13, N, Value("record"), "número sequencial do registro no lote"),
        field(14, 14, A, Fixed("P"), "código do segmento"),
        field(15, 15, A, Blanks, "uso exclusivo FEBRABAN"),
        field(16, 17, N, Value("movement"), "código de movimento remessa"),
        field(18, 22, N, Value("agency"), "agência mantenedora da conta"),
        field(23, 23, A, Value("agency_dv"), "dígito verificador da agência"),
        field(24, 35, N, Value("account"), "número da conta corrente"),
        field(36, 36, A, Value("account_dv"), "dígito verificador da conta"),
        field(37, 37, A, Value("agency_account_dv"), "dígito verificador da agência/conta"),
        field(38, 57, A, Value("title_id"), "identificação do título no banco (nosso número)"),
        field(58, 58, N, Value("carteira_code"), "código da carteira"),
        field(59, 59, N, Fixed("1"), "forma de cadastramento do título no banco (com cadastramento)"),
        field(60, 60, A, Fixed("1"), "tipo de documento (tradicional)"),
        field(61, 61, N, Fixed("2"), "identificação da emissão do boleto (beneficiário emite)"),
        field(62, 62, A, Fixed("2"), "identificação da distribuição (beneficiário distribui)"),
        field(63, 77, A, Value("document_number"), "número do documento de cobrança"),
        field(78, 85, N, Value("due_date"), "data de vencimento do título"),
        field(86, 100, N, Value("amount"), "valor nominal do título"),
        field(101, 105, N, Zeros, "agência encarregada da cobrança"),
        field(106, 106, A, Fixed("0"), "dígito verificador da agência"),
        field(107, 108, N, Fixed("02"), "espécie do título (duplicata mercantil)"),
        field(109, 109, A, Fixed("N"), "identificação de título aceito/não aceito"),
        field(110, 117, N, Value("issued_on"), "data da emissão do título"),
        field(118, 118, N, Value("interest_code"), "código do juros de mora (1 valor por dia, 3 isento)"),
        field(119, 126, N, Value("interest_date"), "data do juros de mora"),
        field(127, 141, N, Value("interest_per_day"), "juros de mora por dia"),
        field(142, 142, N, Zeros, "código do desconto 1 (sem desconto)"),
        field(143, 150, N, Zeros, "data do desconto 1"),
        field(151, 165, N, Zeros, "valor do desconto 1"),
        field(166, 180, N, Zeros, "valor do IOF a ser recolhido"),
        field(181, 195, N, Zeros, "valor do abatimento"),
        field(196, 220, A, Value("reference"), "identificação do título na empresa"),
        field(221, 221, N, Fixed("3"), "código para protesto (não protestar)"),
        field(222, 223, N, Zeros, "número de dias para protesto"),
        field(224, 224, N, Fixed("2"), "código para baixa/devolução (não baixar)"),
        field(225, 227, N, Zeros, "número de dias para baixa/devolução"),
        field(228, 229, N, Fixed("09"), "código da moeda (real)"),
        field(230, 239, N, Zeros, "número do contrato da operação de crédito"),
        field(240, 240, A, Blanks, "uso livre banco/empresa"),
    ],
};

/// Segment Q: who pays.
pub const SEGMENT_Q: Record = Record {
    name: "FEBRABAN 240 segmento Q",
    width: 240,
    fields: &[
        field(1, 3, N, Value("bank_code"), "código do banco na compensação"),
        field(4, 7, N, Fixed("0001"), "lote de serviço"),
        field(8, 8, N, Fixed("3"), "tipo de registro"),
        field(9, 13, N, Value("record"), "número sequencial do registro no lote"),
        field(14, 14, A, Fixed("Q"), "código do segmento"),
        field(15, 15, A, Blanks, "uso exclusivo FEBRABAN"),
        field(16, 17, N, Value("movement"), "código de movimento remessa"),
        field(18, 18, N, Value("payer_kind"), "tipo de inscrição do pagador"),
        field(19, 33, N, Value("payer_document"), "número de inscrição do pagador"),
        field(34, 73, A, Value("payer_name"), "nome"),
        field(74, 113, A, Value("payer_street"), "endereço"),
        field(114, 128, A, Value("payer_district"), "bairro"),
        field(129, 136, N, Value("payer_postal_code"), "CEP e sufixo do CEP"),
        field(137, 151, A, Value("payer_city"), "cidade"),
        field(152, 153, A, Value("payer_state"), "unidade da federação"),
        field(154, 154, N, Zeros, "tipo de inscrição do sacador/avalista"),
        field(155, 169, N, Zeros, "número de inscrição do sacador/avalista"),
        field(170, 209, A, Blanks, "nome do sacador/avalista"),
        field(210, 212, N, Zeros, "código do banco correspondente na compensação"),
        field(213, 232, A, Blanks, "nosso número no banco correspondente"),
        field(233, 240, A, Blanks, "uso exclusivo FEBRABAN"),
    ],
};

/// Segment R: the penalty.
pub const SEGMENT_R: Record = Record {
    name: "FEBRABAN 240 segmento R",
    width: 240,
    fields: &[
        field(1, 3, N, Value("bank_code"), "código do banco na compensação"),
        field(4, 7, N, Fixed("0001"), "lote de serviço"),
        field(8, 8, N, Fixed("3"), "tipo de registro"),
        field(9, 13, N, Value("record"), "número sequencial do registro no lote"),
        field(14, 14, A, Fixed("R"), "código do segmento"),
        field(15, 15, A, Blanks, "uso exclusivo FEBRABAN"),
        field(16, 17, N, Value("movement"), "código de movimento remessa"),
        field(18, 41, N, Zeros, "desconto 2 (código, data, valor)"),
        field(42, 65, N, Zeros, "desconto 3 (código, data, valor)"),
        field(66, 66, N, Value("penalty_code"), "código da multa (1 valor fixo)"),
        field(67, 74, N, Value("penalty_date"), "data da multa"),
        field(75, 89, N, Value("penalty"), "valor da multa"),
        field(90, 99, A, Blanks, "informação ao pagador"),
        field(100, 139, A, Blanks, "mensagem 3"),
        field(140, 179, A, Blanks, "mensagem 4"),
        field(180, 199, A, Blanks, "uso exclusivo FEBRABAN"),
        field(200, 207, N, Zeros, "código de ocorrência do pagador"),
        field(208, 210, N, Zeros, "código do banco da conta de débito"),
        field(211, 215, N, Zeros, "agência da conta de débito"),
        field(216, 216, A, Blanks, "dígito verificador da agência de débito"),
        field(217, 228, N, Zeros, "conta corrente de débito"),
        field(229, 229, A, Blanks, "dígito verificador da conta de débito"),
        field(230, 230, A, Blanks, "dígito verificador da agência/conta de débito"),
        field(231, 231, N, Zeros, "aviso para débito automático"),
        field(232, 240, A, Blanks, "uso exclusivo FEBRABAN"),
    ],
};

/// Record 5: the batch trailer.
pub const BATCH_TRAILER: Record = Record {
    name: "FEBRABAN 240 trailer de lote",
    width: 240,
    fields: &[
        field(1, 3, N, Value("bank_code"), "código do banco na compensação"),
        field(4, 7, N, Fixed("0001"), "lote de serviço"),
        field(8, 8, N, Fixed("5"), "tipo de registro"),
        field(9, 17, A, Blanks, "uso exclusivo FEBRABAN"),
        field(18, 23, N, Value("batch_lines"), "quantidade de registros no lote"),
        field(24, 29, N, Value("titles"), "quantidade de títulos em cobrança simples"),
        field(30, 46, N, Value("total"), "valor total dos títulos em carteiras simples"),
        field(47, 115, N, Zeros, "títulos e valores em cobrança vinculada, caucionada e descontada"),
        field(116, 123, A, Blanks, "número do aviso de lançamento"),
        field(124, 240, A, Blanks, "uso exclusivo FEBRABAN"),
    ],
};

/// Record 9: the file trailer.
pub const FILE_TRAILER: Record = Record {
    name: "FEBRABAN 240 trailer de arquivo",
    width: 240,
    fields: &[
        field(1, 3, N, Value("bank_code"), "código do banco na compensação"),
        field(4, 7, N, Fixed("9999"), "lote de serviço"),
        field(8, 8, N, Fixed("9"), "tipo de registro"),
        field(9, 17, A, Blanks, "uso exclusivo FEBRABAN"),
        field(18, 23, N, Fixed("000001"), "quantidade de lotes do arquivo"),
        field(24, 29, N, Value("file_lines"), "quantidade de registros do arquivo"),
        field(30, 35, N, Zeros, "quantidade de contas para conciliação (lotes)"),
        field(36, 240, A, Blanks, "uso exclusivo FEBRABAN"),
    ],
};

/// Segment T of a return: what the bank did with a title.
pub const SEGMENT_T: Record = Record {
    name: "FEBRABAN 240 segmento T (retorno)",
    width: 240,
    fields: &[
        field(1, 7, N, Unread, "banco e lote"),
        field(8, 8, N, Fixed("3"), "tipo de registro"),
        field(9, 13, N, Unread, "número do registro no lote"),
        field(14, 14, A, Fixed("T"), "código do segmento"),
        field(15, 15, A, Unread, "uso exclusivo FEBRABAN"),
        field(16, 17, N, Value("movement"), "código de movimento retorno"),
        field(18, 37, A, Unread, "agência, conta e dígitos"),
        field(38, 57, A, Value("our_number"), "identificação do título no banco"),
        field(58, 58, A, Unread, "código da carteira"),
        field(59, 73, A, Value("document_number"), "número do documento de cobrança"),
        field(74, 81, N, Value("due_date"), "data do vencimento do título"),
        field(82, 96, N, Value("amount"), "valor nominal do título"),
        field(97, 105, A, Unread, "banco e agência cobradora/recebedora"),
        field(106, 130, A, Value("reference"), "identificação do título na empresa"),
        field(131, 198, A, Unread, "moeda, pagador e contrato"),
        field(199, 213, N, Value("fee"), "valor da tarifa/custas"),
        field(214, 223, A, Value("reasons"), "identificação para rejeições, tarifas, custas, liquidação e baixas"),
        field(224, 240, A, Unread, "uso exclusivo FEBRABAN"),
    ],
};

/// Segment U of a return: the payment's amounts and dates.
pub const SEGMENT_U: Record = Record {
    name: "FEBRABAN 240 segmento U (retorno)",
    width: 240,
    fields: &[
        field(1, 7, N, Unread, "banco e lote"),
        field(8, 8, N, Fixed("3"), "tipo de registro"),
        field(9, 13, N, Unread, "número do registro no lote"),
        field(14, 14, A, Fixed("U"), "código do segmento"),
        field(15, 17, A, Unread, "uso exclusivo FEBRABAN e código de movimento"),
        field(18, 32, N, Value("interest"), "juros, multa e encargos"),
        field(33, 47, N, Value("discount"), "valor do desconto concedido"),
        field(48, 77, N, Unread, "abatimento e IOF"),
        field(78, 92, N, Value("paid_amount"), "valor pago pelo pagador"),
        field(93, 107, N, Value("net_amount"), "valor líquido a ser creditado"),
        field(108, 137, A, Unread, "outras despesas e créditos"),
        field(138, 145, N, Value("occurred_on"), "data da ocorrência"),
        field(146, 153, N, Value("credit_on"), "data da efetivação do crédito"),
        field(154, 240, A, Unread, "ocorrência do pagador, banco correspondente e uso FEBRABAN"),
    ],
};
