//! The `#[dual_delta_test]` attribute. (being written)
use proc_macro::TokenStream;
/// Turns a candidate function into a Dual-Delta test.
#[proc_macro_attribute]
pub fn dual_delta_test(_args: TokenStream, item: TokenStream) -> TokenStream {
    item
}
