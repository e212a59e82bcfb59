//! Codes that Rust and `tape.js` exchange, each table written once: as a Rust enum, and as
//! the JavaScript declaration `tape.js` must hold word for word (its `JS`, checked by tests).

/// `codes! { /// doc  enum Name { Variant = 0, ... } }`: the enum, its `of` (a code read back),
/// and its `JS` (`const Name = { Variant: 0, ... };`).
macro_rules! codes {
    ($(#[$doc:meta])* enum $name:ident { $($(#[$vdoc:meta])* $variant:ident = $code:literal,)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[repr(u8)]
        pub(crate) enum $name {
            $($(#[$vdoc])* $variant = $code,)*
        }

        #[allow(dead_code)] // not every table is read back, or checked in every build
        impl $name {
            /// The value of `code`, if it is one.
            pub(crate) fn of(code: f64) -> Option<$name> {
                match code as u8 {
                    $($code => Some($name::$variant),)*
                    _ => None,
                }
            }

            /// The same table as `tape.js` declares it.
            pub(crate) const JS: &'static str = concat!(
                "const ", stringify!($name), " = { ",
                $(stringify!($variant), ": ", $code, ", ",)*
                "};"
            );

            /// The code as the tape and the edits carry it.
            pub(crate) fn code(self) -> f64 {
                f64::from(self as u8)
            }
        }
    };
}

pub(crate) use codes;
