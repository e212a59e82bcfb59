//! How the objects of a list meet a model: they share their member names, so where each field's
//! member is, found once per list of names and shape, serves every object of the list.

use std::cell::RefCell;
use std::rc::Rc;

use fundraising_core::shape::Shape;

/// One distinct list of member names, and how it meets each shape asked about.
pub(crate) struct NameList {
    pub(crate) names: Vec<String>,
    pub(crate) fits: RefCell<Vec<Rc<Fit>>>,
}

/// How a list of member names meets a shape: for each field, the member of exactly its name.
pub(crate) struct Fit {
    /// The shape's name, which tells the models apart.
    shape: &'static str,
    /// Per field, the position of the member of exactly its name.
    pub(crate) member_of_field: Vec<Option<u32>>,
}

impl NameList {
    /// How these names meet `shape`.
    pub(crate) fn fit(&self, shape: &'static Shape) -> Rc<Fit> {
        let mut fits = self.fits.borrow_mut();
        if let Some(fit) = fits.iter().find(|fit| fit.shape == shape.name) {
            return fit.clone();
        }
        let fit = Rc::new(Fit {
            shape: shape.name,
            member_of_field: (shape.fields.iter())
                .map(|f| {
                    self.names
                        .iter()
                        .position(|n| n == f.name)
                        .map(|i| i as u32)
                })
                .collect(),
        });
        fits.push(fit.clone());
        fit
    }
}

/// An object's member names (one list for every object with the same names).
#[derive(Clone)]
pub(crate) struct Names {
    pub(crate) list: Rc<NameList>,
}

impl AsRef<[String]> for Names {
    fn as_ref(&self) -> &[String] {
        &self.list.names
    }
}

impl PartialEq for Names {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.list, &other.list) || self.list.names == other.list.names
    }
}
