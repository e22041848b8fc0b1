//! The issue type and the parties of a billing's body: its bank rule, who it is for (an individual
//! billing's contact or patient, a bulk billing's tag and the tags it leaves out) and its category.

use super::sent::{id_of, text};
use crate::http::fields::{elements, id_in};
use crate::http::Fields;
use crate::refusal::Problem;
use crate::values::{BankRuleId, BillCategoryId, ContactId, IssueType, TagId};

/// Tags a bulk billing may leave out; each is counted on the tag in the billing's transaction.
const MAX_EXCLUDED_TAGS: usize = 50;

/// The parties as sent; `bank_rule_id` is none only with a problem saying why.
pub(super) struct Parties {
    pub(super) issue_type: IssueType,
    pub(super) bank_rule_id: Option<BankRuleId>,
    pub(super) contact_id: Option<ContactId>,
    pub(super) patient_id: Option<ContactId>,
    pub(super) tag_id: Option<TagId>,
    pub(super) excluded_tag_ids: Vec<TagId>,
    pub(super) bill_category_id: Option<BillCategoryId>,
}

impl Parties {
    /// The parties sent. `updating`: the body is a stored billing with the sent fields over it, and
    /// a bulk billing its expansion made keeps its payer.
    pub(super) fn parse(fields: Fields<'_>, updating: bool, errors: &mut Vec<Problem>) -> Parties {
        let issue_type = issue_type(fields, errors);
        let bank_rule_id = id_of::<BankRuleId>(fields, "bank_rule_id", errors);
        if bank_rule_id.is_none() {
            errors.push(Problem::blank("bank_rule_id", "Regra bancária (bank_rule_id) não pode ficar em branco"));
        }
        let contact_id = id_of::<ContactId>(fields, "contact_id", errors);
        let patient_id = id_of::<ContactId>(fields, "patient_id", errors);
        let tag_id = id_of::<TagId>(fields, "tag_id", errors);
        let bill_category_id = id_of::<BillCategoryId>(fields, "bill_category_id", errors);
        let (contact_id, tag_id) = match issue_type {
            IssueType::Individual => {
                if contact_id.is_none() && patient_id.is_none() {
                    errors.push(Problem::blank("contact_id", "Contato (contact_id) não pode ficar em branco"));
                }
                (contact_id, None)
            }
            IssueType::Bulk => {
                if tag_id.is_none() {
                    let message = "Etiqueta (tag_id) não pode ficar em branco em cobranças em lote";
                    errors.push(Problem::blank("tag_id", message));
                }
                // A bulk request has no payer; a billing its expansion made keeps its own.
                (if updating { contact_id } else { None }, tag_id)
            }
        };
        let excluded_tag_ids = excluded_tag_ids(fields, errors);
        Parties { issue_type, bank_rule_id, contact_id, patient_id, tag_id, excluded_tag_ids, bill_category_id }
    }
}

/// `billing_issue_type`: individual unless sent otherwise.
fn issue_type(fields: Fields<'_>, errors: &mut Vec<Problem>) -> IssueType {
    match text(fields, "billing_issue_type", errors).as_deref().map(IssueType::parse) {
        None => IssueType::Individual,
        Some(Some(kind)) => kind,
        Some(None) => {
            errors.push(Problem::invalid(
                "billing_issue_type",
                "billing_issue_type não está incluído na lista (individual, bulk)",
            ));
            IssueType::Individual
        }
    }
}

/// `excluded_tag_ids`: each tag once, values that are no id ignored, at most
/// [`MAX_EXCLUDED_TAGS`].
fn excluded_tag_ids(fields: Fields<'_>, errors: &mut Vec<Problem>) -> Vec<TagId> {
    let excluded = fields.raw("excluded_tag_ids").map(elements).unwrap_or_default();
    let mut excluded_tag_ids: Vec<TagId> = Vec::new();
    if excluded.len() > MAX_EXCLUDED_TAGS {
        let message = format!("excluded_tag_ids pode ter no máximo {MAX_EXCLUDED_TAGS} etiquetas");
        errors.push(Problem::too_long("excluded_tag_ids", message));
    } else {
        for tag in excluded.into_iter().filter_map(|v| id_in::<TagId>(Some(v)).given()) {
            if !excluded_tag_ids.contains(&tag) {
                excluded_tag_ids.push(tag);
            }
        }
    }
    excluded_tag_ids
}

#[cfg(test)]
mod tests {
    use super::super::tests::{parse, valid};
    use crate::refusal::Problem;
    use crate::values::TagId;
    use serde_json::json;

    #[test]
    fn bulk_needs_a_tag_and_clears_the_contact() {
        let mut body = valid();
        body["billing_issue_type"] = json!("bulk");
        body["excluded_tag_ids"] = json!([4, "x", 5]);
        let d = parse(body).unwrap();
        assert_eq!(
            (d.contact_id, d.tag_id, d.excluded_tag_ids),
            (None, Some(TagId::new(9)), vec![TagId::new(4), TagId::new(5)])
        );
        let mut body = valid();
        body["billing_issue_type"] = json!("bulk");
        body["tag_id"] = json!(null);
        assert_eq!(
            parse(body).unwrap_err(),
            [Problem::blank("tag_id", "Etiqueta (tag_id) não pode ficar em branco em cobranças em lote")]
        );
    }
}
