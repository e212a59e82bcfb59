//! Core's [`ServiceDate`] and the platform's `Date`. (Conversions to and from
//! `std::time::SystemTime`, and with the `chrono` or `time` feature to their types, are core's.)

use fundraising_core::ServiceDate;

use crate::Error;

/// Conversions between [`ServiceDate`] and JavaScript's `Date`.
///
/// ```no_run
/// use fundraising_client::{JsDate, ServiceDate};
/// let date = ServiceDate::from_millis(1_743_761_607_553);
/// let js = date.to_js_date();
/// assert_eq!(ServiceDate::from_js_date(&js).unwrap(), date);
/// ```
pub trait JsDate: Sized {
    /// The same instant as a JS `Date`.
    fn to_js_date(&self) -> js_sys::Date;
    /// The instant of a JS `Date`, in whole milliseconds; `invalid_argument` for an invalid one.
    fn from_js_date(date: &js_sys::Date) -> Result<Self, Error>;
}

impl JsDate for ServiceDate {
    fn to_js_date(&self) -> js_sys::Date {
        js_sys::Date::new(&(self.millis as f64).into())
    }

    fn from_js_date(date: &js_sys::Date) -> Result<Self, Error> {
        let millis = date.get_time();
        if millis.is_nan() {
            return Err(Error::invalid("date", "invalid Date"));
        }
        Ok(ServiceDate::from_millis(millis as i64))
    }
}
