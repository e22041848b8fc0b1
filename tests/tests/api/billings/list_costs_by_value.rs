//! What a list by one bank rule, category or several values reads (and an unfiltered page): totals
//! from the values' counts, pages from their postings, reads that do not grow with the billings.

use billing_api::values::ContactId;
use serde_json::json;

use super::support::Api;
use super::{body, create_with, ids, pay_off_body, setup};

/// Whether a billing due on a day, in a status, is in a list.
type Keep<'a> = dyn Fn(&str, &str) -> bool + 'a;

#[tokio::test]
async fn a_list_by_a_bank_rule_and_statuses_counts_them_and_walks_the_rules_postings() {
    a_list_by_a_value_and_statuses_counts_them_and_walks_the_values_postings("bank_rule_id").await;
}

#[tokio::test]
async fn a_list_by_a_category_and_statuses_counts_them_and_walks_the_categorys_postings() {
    a_list_by_a_value_and_statuses_counts_them_and_walks_the_values_postings("bill_category_id").await;
}

/// A billing of the test below: its id, value (bank rule or category), due date and status.
type Valued = (i64, i64, &'static str, &'static str);

/// A list by one bank rule (`bank_rule_id`) or category (`bill_category_id`) and statuses or due
/// dates: totals and pages right, constant reads as the value's billings grow, and counts the
/// recount agrees with.
async fn a_list_by_a_value_and_statuses_counts_them_and_walks_the_values_postings(field: &'static str) {
    let meter = std::sync::Arc::new(crate::support::ReadMeter::default());
    let api = Api::on(infra::testing::DevServer::start_metered(meter.clone()).await).await;
    let s = setup(&api).await;
    let store = &api.server.store;
    let (rule, other) = match field {
        "bank_rule_id" => {
            let other = infra::ops::create_bank_rule(store, api.account_id, "Outro banco", "simulated", None);
            (s.bank_rule, other.await.unwrap()["bank_rule"]["id"].as_i64().unwrap())
        }
        _ => {
            let other = infra::ops::create_category(store, api.account_id, "Outras receitas", "receivable");
            (s.receivable, other.await.unwrap()["bill_category"]["id"].as_i64().unwrap())
        }
    };
    let cancel = json!({"billing": {"cancellation_reason": "Cliente desistiu"}});
    // 18 billings, two in three of the rule, over a past and a future due date; some canceled.
    let mut made: Vec<Valued> = Vec::new();
    for n in 0..18 {
        let (bank_rule, due) =
            (if n % 3 == 2 { other } else { rule }, if n % 2 == 0 { "2021-06-15" } else { "2030-03-02" });
        let id = create_with(&api, &s, json!({field: bank_rule, "due_date": due})).await;
        let status = if n % 5 == 1 { "canceled" } else { "opened" };
        if status == "canceled" {
            api.post(&format!("/v1/billings/{id}/cancel"), &cancel).await.expect(200);
        }
        made.push((id, bank_rule, due, status));
    }
    let today = billing_api::values::today().to_string();
    let by_value = ByValue { api: &api, field, value: rule, today: &today };
    by_value.lists_answer(&made).await;
    // A pay-off and a cancel move the value's counts.
    let opened: Vec<i64> = by_value.of(&made, &|_, status| status == "opened");
    api.post(&format!("/v1/billings/{}/pay_off", opened[0]), &pay_off_body(&api).await).await.expect(200);
    api.post(&format!("/v1/billings/{}/cancel", opened[1]), &cancel).await.expect(200);
    for entry in made.iter_mut() {
        if entry.0 == opened[0] {
            entry.3 = "discharged";
        } else if entry.0 == opened[1] {
            entry.3 = "canceled";
        }
    }
    by_value.lists_answer(&made).await;
    if field == "bill_category_id" {
        // Billings written before the category had a counter of its own: emptied, it holds fewer
        // than the type's counter says the category has, and the lists read its postings, right
        // still; the operator's recount fills it.
        infra::tampering::empty_category_counter(store, api.account_id, rule).await;
        by_value.lists_answer(&made).await;
        let billings = billing_api::values::BillingType::Billing;
        let fixed = infra::ops::recount_billings(store, api.account_id, billings).await.unwrap();
        let moved: Vec<String> =
            fixed["moved"].as_array().unwrap().iter().map(|m| m["count"].as_str().unwrap_or("").to_owned()).collect();
        assert!(!moved.is_empty() && moved.iter().all(|name| name.starts_with(&format!("K{rule}/"))), "{fixed}");
        by_value.lists_answer(&made).await;
    }
    a_page_of_the_values_opened_reads_the_same_after_more(&api, &meter, &s, field, rule).await;
    // The counts kept are the ones the operator's recount finds.
    let billings = billing_api::values::BillingType::Billing;
    let fixed = infra::ops::recount_billings(store, api.account_id, billings).await.unwrap();
    assert_eq!(fixed["moved"], json!([]));
}

/// The lists by one value (`field` = `value`) of the test above.
struct ByValue<'a> {
    api: &'a Api,
    field: &'static str,
    value: i64,
    today: &'a str,
}

impl ByValue<'_> {
    /// The ids of the value's billings `keep` admits (by due date and status), newest first.
    fn of(&self, made: &[Valued], keep: &Keep<'_>) -> Vec<i64> {
        made.iter()
            .rev()
            .filter(|(_, r, due, status)| *r == self.value && keep(due, status))
            .map(|(id, ..)| *id)
            .collect()
    }

    /// The total and the ids of the value's list with the filter `query`.
    async fn listed(&self, query: String) -> (usize, Vec<i64>) {
        let (field, value) = (self.field, self.value);
        let answer = self.api.get(&format!("/v1/billings?{field}={value}&{query}")).await.expect(200);
        (answer.header("x-total-count").unwrap().parse::<usize>().unwrap(), ids(&answer))
    }

    /// The value's lists by status and due range, whole and their second page of two, are `made`'s.
    async fn lists_answer(&self, made: &[Valued]) {
        let today = self.today;
        let range = "start_due_date=2021-01-01&end_due_date=2021-12-31";
        let filters: [(String, &Keep<'_>); 5] = [
            ("status=opened".to_owned(), &|due, status| status == "opened" && due >= today),
            ("status=expired".to_owned(), &|due, status| status == "opened" && due < today),
            ("status=canceled".to_owned(), &|_, status| status == "canceled"),
            (range.to_owned(), &|due, _| due.starts_with("2021")),
            (format!("{range}&status=expired"), &|due, status| status == "opened" && due.starts_with("2021")),
        ];
        for (filter, keep) in filters {
            let want = self.of(made, keep);
            assert_eq!(self.listed(format!("{filter}&per_page=100")).await, (want.len(), want.clone()), "{filter}");
            let page: Vec<i64> = want.iter().skip(2).take(2).copied().collect();
            assert_eq!(self.listed(format!("{filter}&per_page=2&page=2")).await, (want.len(), page), "{filter}");
        }
    }
}

/// A page of the value's opened billings reads the same after 30 more of them: 40 first, so that
/// every shard of the counter and of the day exists. (Reading the value's postings, as before, it
/// read 30 more.)
async fn a_page_of_the_values_opened_reads_the_same_after_more(
    api: &Api,
    meter: &crate::support::ReadMeter,
    s: &super::Setup,
    field: &'static str,
    value: i64,
) {
    for _ in 0..40 {
        create_with(api, s, json!({field: value, "due_date": "2030-03-02"})).await;
    }
    let path = format!("/v1/billings?{field}={value}&status=opened&per_page=2");
    let before = super::support::fewest_reads(api, meter, &path).await;
    for _ in 0..30 {
        create_with(api, s, json!({field: value, "due_date": "2030-03-02"})).await;
    }
    let after = super::support::fewest_reads(api, meter, &path).await;
    let reads = |r: &crate::support::Reading| (r.round_trips, r.read_units, r.items);
    assert_eq!(reads(&after), reads(&before), "{before:?} {after:?}");
}

#[tokio::test]
async fn an_unfiltered_page_reads_about_the_keys_before_it_not_that_many_from_each_shard() {
    let meter = std::sync::Arc::new(crate::support::ReadMeter::default());
    let api = Api::on(infra::testing::DevServer::start_metered(meter.clone()).await).await;
    let s = setup(&api).await;
    let mut made = Vec::new();
    for _ in 0..40 {
        made.push(create_with(&api, &s, json!({})).await);
    }
    made.reverse();
    let page = |n: usize| format!("/v1/billings?per_page=4&page={n}");
    for n in [1, 3, 5, 10] {
        assert_eq!(ids(&api.get(&page(n)).await.expect(200)), made[4 * n - 4..4 * n].to_vec(), "page {n}");
    }
    // Page 5 needs the newest 20 keys: about 20 read in all (a quarter of them from each of the
    // four shards, and a tenth more), not 20 from each shard, which is every key of these 40;
    // page 10 needs all 40. Both read 4 billings of the same payer besides.
    let middle = super::support::fewest_reads(&api, &meter, &page(5)).await;
    let last = super::support::fewest_reads(&api, &meter, &page(10)).await;
    let entry = 75;
    assert!(last.bytes > middle.bytes + 12 * entry, "{middle:?} {last:?}");
}

#[tokio::test]
async fn a_list_by_one_bank_rule_or_category_reads_its_page_not_its_matches() {
    let meter = std::sync::Arc::new(crate::support::ReadMeter::default());
    let api = Api::on(infra::testing::DevServer::start_metered(meter.clone()).await).await;
    let s = setup(&api).await;
    let store = &api.server.store;
    let other = infra::ops::create_bank_rule(store, api.account_id, "Outro banco", "simulated", None).await.unwrap();
    let other = other["bank_rule"]["id"].as_i64().unwrap();
    let mut ours = Vec::new();
    for n in 0..12 {
        let rule = if n % 4 == 3 { other } else { s.bank_rule };
        ours.push((create_with(&api, &s, json!({"bank_rule_id": rule})).await, rule));
    }
    let by_rule =
        |rule: i64| -> Vec<i64> { ours.iter().rev().filter(|(_, r)| *r == rule).map(|(id, _)| *id).collect() };
    let listed = |path: String| {
        let api = &api;
        async move {
            let answer = api.get(&path).await.expect(200);
            (answer.header("x-total-count").unwrap().to_owned(), ids(&answer))
        }
    };
    // The total from the rule's count, the pages in id order from its postings.
    let rule_q = |rule: i64, page: usize| format!("/v1/billings?bank_rule_id={rule}&per_page=4&page={page}");
    let expected = by_rule(s.bank_rule);
    assert_eq!(listed(rule_q(s.bank_rule, 1)).await, ("9".to_owned(), expected[..4].to_vec()));
    assert_eq!(listed(rule_q(s.bank_rule, 3)).await, ("9".to_owned(), expected[8..].to_vec()));
    assert_eq!(listed(rule_q(s.bank_rule, 4)).await, ("9".to_owned(), vec![]));
    assert_eq!(listed(rule_q(other, 1)).await, ("3".to_owned(), by_rule(other)));
    let category_q = format!("/v1/billings?bill_category_id={}&per_page=100", s.receivable);
    assert_eq!(listed(category_q.clone()).await, ("12".to_owned(), ours.iter().rev().map(|(id, _)| *id).collect()));
    // A billing moved to the other rule counts there; one with no category leaves its count.
    let moved = ours[0].0;
    api.patch(&format!("/v1/billings/{moved}"), &json!({"billing": {"bank_rule_id": other}})).await.expect(200);
    api.patch(&format!("/v1/billings/{moved}"), &json!({"billing": {"bill_category_id": null}})).await.expect(200);
    assert_eq!(listed(rule_q(s.bank_rule, 1)).await.0, "8");
    assert_eq!(listed(rule_q(other, 1)).await, ("4".to_owned(), [by_rule(other), vec![moved]].concat()));
    assert_eq!(listed(category_q.clone()).await.0, "11");
    // What a page reads does not grow with the rule's billings (pages of the same billings: four
    // of the same payer, newest).
    for _ in 0..4 {
        create_with(&api, &s, json!({})).await;
    }
    let cost = |path: String| {
        let (api, meter) = (&api, &meter);
        async move { super::support::fewest_reads(api, meter, &path).await }
    };
    let before = cost(rule_q(s.bank_rule, 1)).await;
    for _ in 0..30 {
        create_with(&api, &s, json!({})).await;
    }
    let after = cost(rule_q(s.bank_rule, 1)).await;
    assert_eq!((after.round_trips, after.read_units), (before.round_trips, before.read_units), "{before:?} {after:?}");
    // Once every shard holds a page's worth, not even the bytes move (at most 4 postings a shard).
    for _ in 0..30 {
        create_with(&api, &s, json!({})).await;
    }
    let later = cost(rule_q(s.bank_rule, 1)).await;
    assert_eq!(listed(rule_q(s.bank_rule, 1)).await.0, "72");
    assert_eq!((later.round_trips, later.read_units), (after.round_trips, after.read_units));
    assert!(later.bytes.abs_diff(after.bytes) < 64, "{} then {} bytes", after.bytes, later.bytes);
    // A bulk billing's expansion counts its billings too.
    let tag = api.post("/v1/tags", &json!({"tag": {"name": "Turma"}})).await.expect(201).body["id"].as_i64().unwrap();
    let tag = billing_api::values::TagId::new(tag);
    infra::testing::tagged_customers(store, api.account_id, tag, 3).await;
    let mut bulk = body(&s);
    bulk["billing"]["billing_issue_type"] = json!("bulk");
    bulk["billing"]["tag_id"] = json!(tag.get());
    api.post("/v1/billings", &bulk).await.expect(202);
    api.server.expand_bulk().await;
    assert_eq!(listed(rule_q(s.bank_rule, 1)).await.0, "75");
    assert_eq!(listed(category_q).await.0, "78");
}

/// A billing of the test below: id, contact, rule, category, status.
type Made = (i64, i64, i64, i64, &'static str);
/// Whether a list admits one.
type Admits<'a> = dyn Fn(&Made) -> bool + 'a;

/// The values the billings of the test below name: the setup's bank rule, category and payer,
/// and another of each.
#[derive(Clone, Copy)]
struct Values {
    rule: i64,
    category: i64,
    contact: i64,
    other_rule: i64,
    other_category: i64,
    other_payer: i64,
}

#[tokio::test]
async fn a_list_by_several_values_reads_the_postings_of_the_one_with_fewest() {
    let meter = std::sync::Arc::new(crate::support::ReadMeter::default());
    let api = Api::on(infra::testing::DevServer::start_metered(meter.clone()).await).await;
    let s = setup(&api).await;
    let store = &api.server.store;
    let v = with_other_values(&api, &s).await;
    let Values { rule, other_rule, other_category, other_payer, .. } = v;
    let mut made = twelve_over_the_values(&api, &s, v).await;
    let today = billing_api::values::today().to_string();
    let yesterday = (billing_api::values::today() - chrono::Duration::days(1)).to_string();
    lists_by_several_values_answer(&api, &made, v, &today, &yesterday).await;
    // A billing moved to the other rule and category: the postings of its payer carry them.
    let moved = made[0].0;
    let change = json!({"billing": {"bank_rule_id": other_rule, "bill_category_id": other_category}});
    api.patch(&format!("/v1/billings/{moved}"), &change).await.expect(200);
    (made[0].2, made[0].3) = (other_rule, other_category);
    lists_by_several_values_answer(&api, &made, v, &today, &yesterday).await;
    // The other payer's billings of the rule cost the same after 30 more billings of the rule
    // (another payer's): the payer's postings are read, not the rule's. (Reading both, as before,
    // it read 30 postings more.)
    let path = format!("/v1/billings?contact_id={other_payer}&bank_rule_id={rule}");
    let before = super::support::fewest_reads(&api, &meter, &path).await;
    for _ in 0..30 {
        create_with(&api, &s, json!({"bank_rule_id": rule})).await;
    }
    let after = super::support::fewest_reads(&api, &meter, &path).await;
    let reads = |r: &crate::support::Reading| (r.round_trips, r.read_units, r.items);
    assert_eq!(reads(&after), reads(&before), "{before:?} {after:?}");
    // A posting written before the values were carried (no `f`) sends the list the long way:
    // right still.
    let first = billing_api::values::BillingId::new(made[3].0);
    infra::tampering::uncarry_contact_posting(store, api.account_id, first, ContactId::new(other_payer)).await;
    assert_eq!(
        listed_whole(&api, format!("contact_id={other_payer}&bank_rule_id={rule}")).await,
        expected(&made, &|b| b.1 == other_payer && b.2 == rule)
    );
}

/// The setup's values, and another bank rule, category and payer.
async fn with_other_values(api: &Api, s: &super::Setup) -> Values {
    let store = &api.server.store;
    let other_rule =
        infra::ops::create_bank_rule(store, api.account_id, "Outro banco", "simulated", None).await.unwrap();
    let other_rule = other_rule["bank_rule"]["id"].as_i64().unwrap();
    let other_category = infra::ops::create_category(store, api.account_id, "Outras receitas", "receivable").await;
    let other_category = other_category.unwrap()["bill_category"]["id"].as_i64().unwrap();
    let payer = json!({"contact": {
        "full_name": "João Souza", "cpf": infra::testing::cpf(320_000_000), "address_postal_code": "01310-100",
        "address_street": "Avenida Paulista", "address_number": "1000", "address_district": "Bela Vista",
        "address_city": "São Paulo", "address_state": "SP"}});
    let other_payer = api.post("/v1/contacts", &payer).await.expect(201).body["id"].as_i64().unwrap();
    Values { rule: s.bank_rule, category: s.receivable, contact: s.contact, other_rule, other_category, other_payer }
}

/// 12 billings: every third of the other payer, every other one of the other rule, two in four
/// of the other category; the last with a code of its own; the seventh canceled.
async fn twelve_over_the_values(api: &Api, s: &super::Setup, v: Values) -> Vec<Made> {
    let mut made: Vec<Made> = Vec::new();
    for n in 0..12 {
        let contact = if n % 3 == 0 { v.other_payer } else { s.contact };
        let rule = if n % 2 == 0 { s.bank_rule } else { v.other_rule };
        let category = if n % 4 < 2 { s.receivable } else { v.other_category };
        let mut changes = json!({"contact_id": contact, "bank_rule_id": rule, "bill_category_id": category});
        if n == 11 {
            changes["your_code"] = json!("ERP-99");
        }
        let id = create_with(api, s, changes).await;
        made.push((id, contact, rule, category, "opened"));
    }
    let cancel = json!({"billing": {"cancellation_reason": "Cliente desistiu"}});
    api.post(&format!("/v1/billings/{}/cancel", made[6].0), &cancel).await.expect(200);
    made[6].4 = "canceled";
    made
}

/// The total and the ids of the whole list (up to 100) answering `query`.
async fn listed_whole(api: &Api, query: String) -> (usize, Vec<i64>) {
    let answer = api.get(&format!("/v1/billings?per_page=100&{query}")).await.expect(200);
    (answer.header("x-total-count").unwrap().parse::<usize>().unwrap(), ids(&answer))
}

/// The total and the ids, newest first, of the billings a list admits.
fn expected(made: &[Made], keep: &Admits<'_>) -> (usize, Vec<i64>) {
    let ids: Vec<i64> = made.iter().rev().filter(|b| keep(b)).map(|b| b.0).collect();
    (ids.len(), ids)
}

/// Lists by two or three values (a payer, a bank rule, a category, a code), with a status or a
/// creation day, are `made`'s.
async fn lists_by_several_values_answer(api: &Api, made: &[Made], v: Values, today: &str, yesterday: &str) {
    let Values { rule, category, contact, other_rule, other_category, other_payer } = v;
    let coded = made[11].0;
    let cases: Vec<(String, Box<Admits>)> = vec![
        (format!("contact_id={other_payer}&bank_rule_id={rule}"), Box::new(move |b| b.1 == other_payer && b.2 == rule)),
        (
            format!("bank_rule_id={rule}&bill_category_id={other_category}"),
            Box::new(move |b| b.2 == rule && b.3 == other_category),
        ),
        (
            format!("contact_id={contact}&bank_rule_id={other_rule}&bill_category_id={category}"),
            Box::new(move |b| b.1 == contact && b.2 == other_rule && b.3 == category),
        ),
        (
            format!("contact_id={contact}&bank_rule_id={rule}&status=opened"),
            Box::new(move |b| b.1 == contact && b.2 == rule && b.4 == "opened"),
        ),
        (
            format!("bank_rule_id={rule}&start_created_at={today}&end_created_at={today}"),
            Box::new(move |b| b.2 == rule),
        ),
        (format!("bank_rule_id={rule}&start_created_at={yesterday}&end_created_at={yesterday}"), Box::new(|_| false)),
        (format!("your_code=ERP-99&bank_rule_id={other_rule}"), Box::new(move |b| b.0 == coded && b.2 == other_rule)),
        (format!("your_code=ERP-99&bank_rule_id={rule}"), Box::new(|_| false)),
    ];
    for (q, keep) in &cases {
        assert_eq!(listed_whole(api, q.clone()).await, expected(made, keep.as_ref()), "{q}");
    }
}
