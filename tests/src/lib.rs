//! Black-box API tests live in tests/tests/.
