//! The closed sets of values of the spec: statuses, types and kinds. Each is an enum whose text
//! (on the wire and in storage) is the spec's own word; anything else does not parse.

use std::fmt;

use serde::{Deserialize, Serialize};

/// An enum whose variants are written as fixed words.
macro_rules! words {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $text:literal,)* }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum $name {
            $($(#[$vdoc])* #[serde(rename = $text)] $variant,)*
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }

            /// The value written exactly as the spec writes it (no trimming, case-sensitive).
            pub fn parse(text: &str) -> Option<$name> {
                match text {
                    $($text => Some($name::$variant),)*
                    _ => None,
                }
            }

            /// `a, b, c`: the accepted words, for messages.
            pub fn list() -> String {
                Self::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>().join(", ")
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;

            fn from_str(text: &str) -> Result<Self, String> {
                $name::parse(text).ok_or_else(|| format!("{text:?} is not one of {}", $name::list()))
            }
        }
    };
}

words! {
    /// §3.1: the persisted status of a billing.
    BillingStatus {
        Opened = "opened",
        UnderReview = "under_review",
        AwaitingCapture = "awaiting_capture",
        Protested = "protested",
        InDispute = "in_dispute",
        Paid = "paid",
        Available = "available",
        Discharged = "discharged",
        Canceled = "canceled",
        Returned = "returned",
    }
}

impl BillingStatus {
    /// §3.1: "collectable" means opened, under review, awaiting capture or protested.
    pub fn collectable(self) -> bool {
        matches!(
            self,
            BillingStatus::Opened
                | BillingStatus::UnderReview
                | BillingStatus::AwaitingCapture
                | BillingStatus::Protested
        )
    }

    /// Statuses the cancel and pay-off operations accept (the spec leaves them open): the
    /// collectable ones. A billing in dispute, already settled, cancelled or returned gets 422.
    pub fn accepts_cancel_or_pay_off(self) -> bool {
        self.collectable()
    }
}

words! {
    /// §2.1: what the API creates (`billing`) and the legacy records it reads.
    BillingType {
        Billing = "billing",
        /// Recurring, created elsewhere; may be edited and deleted.
        Schedule = "schedule",
        /// Instalment booklet, created elsewhere; never editable.
        Carne = "carne",
    }
}

words! {
    /// §2.1: one contact, or every active customer of a tag.
    IssueType {
        Individual = "individual",
        Bulk = "bulk",
    }
}

words! {
    /// How a discount, penalty or interest value is read: a percentage of the amount, or money.
    ValueKind {
        Percentage = "percentage",
        FixedAmount = "fixed_amount",
    }
}

words! {
    /// What an interest rate is per.
    InterestPeriod {
        Monthly = "monthly",
        Daily = "daily",
    }
}

words! {
    /// §2.1: what the bank does with a billet `instruction_days` after its due date.
    InstructionType {
        Protest = "protest",
        Devolution = "devolution",
    }
}

words! {
    /// §2.4: the colours of a tag.
    TagColor {
        Default = "default",
        Info = "info",
        Primary = "primary",
        Success = "success",
        Warning = "warning",
        Danger = "danger",
        Purple = "purple",
    }
}

words! {
    /// §2.3: a contact's type (singular).
    ContactType {
        Customer = "customer",
        Supplier = "supplier",
    }
}

words! {
    /// §2.5: a group's type (plural, unlike the contact's).
    GroupContactType {
        Customers = "customers",
        Suppliers = "suppliers",
    }
}

words! {
    /// §2.6: a financial category's type.
    CategoryType {
        Receivable = "receivable",
        Payable = "payable",
    }
}

words! {
    /// §2.6: a bank account's type; `service` is the service's own account (not a pay-off target).
    BankAccountType {
        Checking = "checking",
        Savings = "savings",
        Cash = "cash",
        Service = "service",
    }
}

words! {
    /// §4.2: why a billing was settled manually.
    DischargeReason {
        BankDeposit = "bank_deposit",
        PaymentInHand = "payment_in_hand",
    }
}

words! {
    /// §5: an account's standing; only `active` accounts use the API.
    AccountStatus {
        Active = "active",
        Overdue = "overdue",
        Locked = "locked",
        Canceled = "canceled",
    }
}

words! {
    /// §3.2. Transitions used here: `issued` (written locally, waiting for the bank) → `remitting`
    /// (sent to the provider) → `opened` (registered) or `rejected`; `opened` → `paid` (bank
    /// payment), `discharged` (billing paid off) or `canceled` (billing cancelled or billet
    /// re-issued); an `issued`, `remitting` or `rejected` billet can be `canceled` too.
    BilletStatus {
        Issued = "issued",
        PendingRemittance = "pending_remittance",
        Remitting = "remitting",
        Remittanced = "remittanced",
        Opened = "opened",
        Rejected = "rejected",
        Paid = "paid",
        Discharged = "discharged",
        Canceled = "canceled",
        Protested = "protested",
    }
}

words! {
    /// A webhook delivery: `pending` until the receiver answers `2xx` (`delivered`) or the retries
    /// run out (`failed`).
    DeliveryStatus {
        Pending = "pending",
        Delivered = "delivered",
        Failed = "failed",
    }
}

words! {
    /// Whether an event still waits in the outbox (`pending`) or was handed on (`dispatched`).
    OutboxStatus {
        Pending = "pending",
        Dispatched = "dispatched",
    }
}

words! {
    /// The instalment plan of a billing: `none` for every billing made through the API, `monthly`
    /// for the booklets of legacy imports (§2.1).
    InstallmentType {
        None = "none",
        Monthly = "monthly",
    }
}

words! {
    /// How a sale, or a receipt against its open amount, was paid.
    PaymentKind {
        Cash = "cash",
        Card = "card",
        Pix = "pix",
        /// The customer's credit balance.
        StoreCredit = "store_credit",
        /// Left open: the customer owes it (`due_amount`).
        OnAccount = "on_account",
    }
}

words! {
    /// Where a returned amount goes, beyond what it takes off the sale's open amount.
    RefundTo {
        Cash = "cash",
        StoreCredit = "store_credit",
    }
}

words! {
    /// A movement of a customer's credit balance.
    CreditMovementKind {
        /// Credit added (`POST /v1/store_credits`).
        Added = "added",
        /// Spent paying a sale.
        Used = "used",
        /// A sale's return given back as credit.
        Returned = "returned",
    }
}

words! {
    /// A settlement by transfer of on-account balances.
    SettlementState {
        Pending = "pending",
        Processing = "processing",
        Completed = "completed",
        Failed = "failed",
    }
}

impl BilletStatus {
    /// §2.2 `editable`: the billing around it may still change freely.
    pub fn editable(self) -> bool {
        matches!(self, BilletStatus::Issued | BilletStatus::PendingRemittance | BilletStatus::Rejected)
    }

    /// Not yet answered by the bank: the registration worker carries it on.
    pub fn awaiting_bank(self) -> bool {
        matches!(
            self,
            BilletStatus::Issued
                | BilletStatus::PendingRemittance
                | BilletStatus::Remitting
                | BilletStatus::Remittanced
        )
    }

    /// The payer can still pay it (`overdue` counts only these).
    pub fn collectable(self) -> bool {
        matches!(self, BilletStatus::Opened | BilletStatus::Protested)
    }

    /// Still alive: cancelling or paying off the billing closes it.
    pub fn open(self) -> bool {
        self.awaiting_bank() || matches!(self, BilletStatus::Opened | BilletStatus::Protested | BilletStatus::Rejected)
    }
}

/// How a payment came.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PaymentChannel {
    /// The boleto, paid at a bank.
    BankBillet,
    /// The billing's Pix charge, paid from the payer's bank.
    Pix,
    /// A card, through the account's checkout gateway (`payments::card`).
    CreditCard,
    /// Paid outside the service and written off by the account (pay-off, `discharged`).
    Manual,
}

impl PaymentChannel {
    pub const ALL: [PaymentChannel; 4] =
        [PaymentChannel::BankBillet, PaymentChannel::Pix, PaymentChannel::CreditCard, PaymentChannel::Manual];

    /// The channel named `text` ([`PaymentChannel::as_str`]).
    pub fn parse(text: &str) -> Option<PaymentChannel> {
        PaymentChannel::ALL.into_iter().find(|channel| channel.as_str() == text)
    }

    /// Every channel's name, for a message (`bank_billet, pix, credit_card, manual`).
    pub fn list() -> String {
        PaymentChannel::ALL.map(PaymentChannel::as_str).join(", ")
    }

    /// Its name: in the ledger's keys and as the billing's `gw_received_with`.
    pub fn as_str(self) -> &'static str {
        match self {
            PaymentChannel::BankBillet => "bank_billet",
            PaymentChannel::Pix => "pix",
            PaymentChannel::CreditCard => "credit_card",
            PaymentChannel::Manual => "manual",
        }
    }
}

/// How a reminder reaches its payer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReminderChannel {
    Email,
    Whatsapp,
}

impl ReminderChannel {
    pub const ALL: [ReminderChannel; 2] = [ReminderChannel::Email, ReminderChannel::Whatsapp];

    pub fn as_str(self) -> &'static str {
        match self {
            ReminderChannel::Email => "email",
            ReminderChannel::Whatsapp => "whatsapp",
        }
    }

    pub fn parse(text: &str) -> Option<ReminderChannel> {
        ReminderChannel::ALL.into_iter().find(|c| c.as_str() == text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip_and_nothing_else_parses() {
        for status in BillingStatus::ALL {
            assert_eq!(BillingStatus::parse(status.as_str()), Some(*status));
            assert_eq!(serde_json::to_value(status).unwrap(), status.as_str());
        }
        assert_eq!(BillingStatus::parse("Opened"), None);
        assert_eq!(TagColor::parse(" info"), None);
        assert_eq!(TagColor::list(), "default, info, primary, success, warning, danger, purple");
        assert_eq!(serde_json::from_str::<ValueKind>("\"fixed_amount\"").unwrap(), ValueKind::FixedAmount);
    }

    #[test]
    fn status_groups() {
        assert!(BillingStatus::Protested.collectable() && !BillingStatus::InDispute.collectable());
        assert!(BilletStatus::Rejected.editable() && !BilletStatus::Opened.editable());
        assert!(BilletStatus::Remitting.awaiting_bank() && !BilletStatus::Opened.awaiting_bank());
        assert!(BilletStatus::Opened.open() && !BilletStatus::Paid.open() && !BilletStatus::Canceled.open());
    }
}
