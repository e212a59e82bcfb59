//! Derives of `fundraising-core`, read from the type definition itself (the serde attributes
//! it already carries, and its field types):
//!
//! - `#[derive(Model)]`: the decode shape of a wire model (`fundraising_core::shape::Model`:
//!   each field's JS name, kind and presence, which core's one decoder walks) and its
//!   TypeScript declaration;
//! - `#[derive(TypeScript)]`: only the TypeScript declaration (`fundraising_core::shape::Declared`),
//!   for the types JS passes in (options, the event argument).
//!
//! Attributes read: `#[serde(rename_all = "camelCase")]`, `#[serde(rename = "...")]`,
//! `#[serde(default)]`, doc comments; and our own `#[model(decimal_text)]` on a field (a decimal
//! sent as text, a JSON number accepted and kept as its text), `#[model(input)]` on the type (a
//! type JS writes: members that may be null or have a default may be left out) and
//! `#[model(required)]` on a field of such a type (a member the call refuses when it is missing
//! or empty, so JS must give it).

use proc_macro::TokenStream;
use proc_macro2::TokenStream as Tokens;
use quote::quote;
use syn::{
    parse_macro_input, Attribute, Data, DeriveInput, Fields, GenericArgument, LitStr,
    PathArguments, Type,
};

/// The decode shape and the TypeScript declaration of a wire model.
#[proc_macro_derive(Model, attributes(model))]
pub fn derive_model(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand(&input, true).unwrap_or_else(|e| e.to_compile_error().into())
}

/// The TypeScript declaration of a type JS passes in or receives.
#[proc_macro_derive(TypeScript, attributes(model, serde))]
pub fn derive_typescript(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand(&input, false).unwrap_or_else(|e| e.to_compile_error().into())
}

struct FieldInfo {
    js_name: String,
    ty: Type,
    optional: bool,
    default: bool,
    required: bool,
    decimal_text: bool,
    doc: String,
}

/// The named fields of a struct; anything else is a compile error.
fn named_fields(input: &DeriveInput) -> syn::Result<&syn::FieldsNamed> {
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new_spanned(
            &input.ident,
            "only structs can be derived",
        ));
    };
    match &data.fields {
        Fields::Named(named) => Ok(named),
        _ => Err(syn::Error::new_spanned(
            &input.ident,
            "only named fields are supported",
        )),
    }
}

fn expand(input: &DeriveInput, with_shape: bool) -> syn::Result<TokenStream> {
    let name = &input.ident;
    let named = named_fields(input)?;
    let container = Attrs::read(&input.attrs)?;
    let mut fields = Vec::new();
    for field in &named.named {
        let attrs = Attrs::read(&field.attrs)?;
        if attrs.skip {
            continue;
        }
        let rust_name = field.ident.as_ref().expect("named field").to_string();
        let rust_name = rust_name.trim_start_matches("r#");
        let js_name = match (&attrs.rename, container.rename_all.as_deref()) {
            (Some(rename), _) => rename.clone(),
            (None, Some("camelCase")) => camel_case(rust_name),
            (None, None) => rust_name.to_owned(),
            (None, Some(other)) => {
                return Err(syn::Error::new_spanned(
                    name,
                    format!("rename_all = {other:?} is not supported"),
                ))
            }
        };
        // A view that borrows (`&'a T`) is declared as `T`.
        let field_ty = match &field.ty {
            Type::Reference(reference) => &*reference.elem,
            other => other,
        };
        let (ty, optional) = match option_inner(field_ty) {
            Some(inner) => (inner.clone(), true),
            None => (field_ty.clone(), false),
        };
        fields.push(FieldInfo {
            js_name,
            ty,
            optional,
            default: attrs.default,
            required: attrs.required,
            decimal_text: attrs.decimal_text,
            doc: doc(&field.attrs, "  "),
        });
    }

    let ts = typescript(
        &name.to_string(),
        &doc(&input.attrs, ""),
        &fields,
        container.input,
    )?;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let mut out = quote! {
        impl #impl_generics ::fundraising_core::shape::Declared for #name #ty_generics #where_clause {
            const TS: &'static str = #ts;
        }
    };
    if with_shape {
        let shape_fields = fields
            .iter()
            .map(shape_field)
            .collect::<syn::Result<Vec<_>>>()?;
        let type_name = name.to_string();
        out.extend(quote! {
            impl ::fundraising_core::shape::Model for #name {
                const SHAPE: &'static ::fundraising_core::shape::Shape =
                    &::fundraising_core::shape::Shape {
                        name: #type_name,
                        fields: &[#(#shape_fields),*],
                    };
            }
            impl ::fundraising_core::shape::HasKind for #name {
                const KIND: ::fundraising_core::shape::Kind =
                    ::fundraising_core::shape::Kind::Struct(
                        <Self as ::fundraising_core::shape::Model>::SHAPE,
                    );
            }
        });
    }
    Ok(out.into())
}

/// `Field { name, kind, presence }` of one field.
fn shape_field(field: &FieldInfo) -> syn::Result<Tokens> {
    let name = &field.js_name;
    let kind = if field.decimal_text {
        quote!(::fundraising_core::shape::Kind::DecimalText)
    } else {
        kind(&field.ty)?
    };
    let presence = match (field.optional, field.default) {
        (true, _) => quote!(Optional),
        (false, true) => quote!(Default),
        (false, false) => quote!(Required),
    };
    Ok(quote! {
        ::fundraising_core::shape::Field {
            name: #name,
            kind: #kind,
            presence: ::fundraising_core::shape::Presence::#presence,
        }
    })
}

/// The kind of a field type: a list for `Vec<T>`, else the type's own `HasKind::KIND`.
fn kind(ty: &Type) -> syn::Result<Tokens> {
    if let Some(item) = generic_of(ty, "Vec") {
        let item = kind(item)?;
        return Ok(quote!(::fundraising_core::shape::Kind::List(&#item)));
    }
    Ok(quote!(<#ty as ::fundraising_core::shape::HasKind>::KIND))
}

fn typescript(name: &str, doc: &str, fields: &[FieldInfo], input: bool) -> syn::Result<LitStr> {
    let mut ts = format!("{doc}export interface {name} {{\n");
    for field in fields {
        let mut ty = if field.decimal_text {
            "string".to_owned()
        } else {
            ts_type(&field.ty)?
        };
        if field.optional {
            ty.push_str(" | null");
        }
        let may_be_left_out = input && (field.optional || field.default) && !field.required;
        ts.push_str(&field.doc);
        ts.push_str(&format!(
            "  {}{}: {ty};\n",
            field.js_name,
            if may_be_left_out { "?" } else { "" }
        ));
    }
    ts.push_str("}\n");
    Ok(LitStr::new(&ts, proc_macro2::Span::call_site()))
}

fn ts_type(ty: &Type) -> syn::Result<String> {
    if let Some(inner) = generic_of(ty, "Option") {
        return Ok(format!("{} | null", ts_type(inner)?));
    }
    if let Some(item) = generic_of(ty, "Vec") {
        let item = ts_type(item)?;
        return Ok(if item.contains(' ') {
            format!("({item})[]")
        } else {
            format!("{item}[]")
        });
    }
    let Some(segment) = last_segment(ty) else {
        return Err(syn::Error::new_spanned(
            ty,
            "cannot express this type in TypeScript",
        ));
    };
    let name = segment.ident.to_string();
    Ok(match name.as_str() {
        "String" | "str" => "string".into(),
        "f64" | "f32" | "i8" | "i16" | "i32" | "i64" | "u8" | "u16" | "u32" | "u64" => {
            "number".into()
        }
        "bool" => "boolean".into(),
        "ServiceDate" => "Date".into(),
        "Value" | "JsValue" => "unknown".into(),
        other
            if other.chars().next().is_some_and(char::is_uppercase)
                && segment.arguments.is_empty() =>
        {
            other.into()
        }
        _ => {
            return Err(syn::Error::new_spanned(
                ty,
                "cannot express this type in TypeScript",
            ))
        }
    })
}

fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(p) => p.path.segments.last(),
        _ => None,
    }
}

/// `T` of `Wrapper<T>`, when `ty` is that wrapper.
fn generic_of<'a>(ty: &'a Type, wrapper: &str) -> Option<&'a Type> {
    let segment = last_segment(ty)?;
    if segment.ident != wrapper {
        return None;
    }
    match &segment.arguments {
        PathArguments::AngleBracketed(args) => args.args.iter().find_map(|a| match a {
            GenericArgument::Type(t) => Some(t),
            _ => None,
        }),
        _ => None,
    }
}

fn option_inner(ty: &Type) -> Option<&Type> {
    generic_of(ty, "Option")
}

fn camel_case(snake: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The doc comment as one JSDoc line.
fn doc(attrs: &[Attribute], indent: &str) -> String {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value().trim().replace("*/", "* /")),
                _ => None,
            },
            _ => None,
        })
        .collect();
    if lines.is_empty() {
        String::new()
    } else {
        format!("{indent}/** {} */\n", lines.join(" ").trim())
    }
}

/// The attributes this derive reads.
#[derive(Default)]
struct Attrs {
    rename_all: Option<String>,
    rename: Option<String>,
    skip: bool,
    default: bool,
    deserialize_with: Option<String>,
    decimal_text: bool,
    input: bool,
    required: bool,
}

impl Attrs {
    fn read(attrs: &[Attribute]) -> syn::Result<Self> {
        let mut out = Attrs::default();
        for attr in attrs {
            if attr.path().is_ident("serde") {
                attr.parse_nested_meta(|meta| {
                    let key = meta.path.get_ident().map(|i| i.to_string());
                    let value = if meta.input.peek(syn::Token![=]) {
                        let value = meta.value()?;
                        match value.parse::<LitStr>() {
                            Ok(lit) => Some(lit.value()),
                            Err(_) => None,
                        }
                    } else if meta.input.peek(syn::token::Paren) {
                        // e.g. `default = ...(..)`: not read here; consume it.
                        let _ = meta.input.parse::<proc_macro2::Group>();
                        None
                    } else {
                        None
                    };
                    match key.as_deref() {
                        Some("rename_all") => out.rename_all = value,
                        Some("rename") => out.rename = value,
                        Some("skip") => out.skip = true,
                        Some("default") => out.default = true,
                        Some("deserialize_with") => out.deserialize_with = value,
                        _ => {}
                    }
                    Ok(())
                })?;
            } else if attr.path().is_ident("model") {
                attr.parse_nested_meta(|meta| {
                    if meta.path.is_ident("decimal_text") {
                        out.decimal_text = true;
                        Ok(())
                    } else if meta.path.is_ident("input") {
                        out.input = true;
                        Ok(())
                    } else if meta.path.is_ident("required") {
                        out.required = true;
                        Ok(())
                    } else {
                        Err(meta.error("expected `decimal_text`, `input` or `required`"))
                    }
                })?;
            }
        }
        Ok(out)
    }
}

/// A serde `Deserialize` for a record (a struct of named fields), table-driven: member names
/// are matched by one seed shared by every record (`fundraising_core::shape::FieldIndex`), so
/// each type carries only its list of names and one match arm per field, without
/// serde_derive's per-type identifier visitor and sequence form. Reads `rename_all`, `rename`,
/// `default` and `deserialize_with`; an `Option` field may be missing; unknown members are
/// skipped; of a repeated member the last one counts.
#[proc_macro_derive(Record, attributes(serde))]
pub fn derive_record(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    record(&input).unwrap_or_else(|e| e.to_compile_error().into())
}

fn record(input: &DeriveInput) -> syn::Result<TokenStream> {
    let name = &input.ident;
    let named = named_fields(input)?;
    let container = Attrs::read(&input.attrs)?;
    let (_, ty_generics, where_clause) = input.generics.split_for_impl();
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &input.generics,
            "generics are not supported",
        ));
    }
    let mut names = Vec::new();
    let mut slots = Vec::new();
    let mut arms = Vec::new();
    let mut inits = Vec::new();
    let mut required = Vec::new();
    for (index, field) in named.named.iter().enumerate() {
        let attrs = Attrs::read(&field.attrs)?;
        let ident = field.ident.as_ref().expect("named field");
        let rust_name = ident.to_string();
        let rust_name = rust_name.trim_start_matches("r#");
        let js_name = match (&attrs.rename, container.rename_all.as_deref()) {
            (Some(rename), _) => rename.clone(),
            (None, Some("camelCase")) => camel_case(rust_name),
            (None, _) => rust_name.to_owned(),
        };
        let slot = quote::format_ident!("__slot{}", index);
        let ty = &field.ty;
        slots.push(
            quote!(let mut #slot: ::core::option::Option<#ty> = ::core::option::Option::None;),
        );
        let read = match &attrs.deserialize_with {
            Some(path) => {
                let path: syn::ExprPath = syn::parse_str(path)?;
                quote! {{
                    struct __With(#ty);
                    impl<'de> ::serde::Deserialize<'de> for __With {
                        fn deserialize<__D: ::serde::Deserializer<'de>>(
                            deserializer: __D,
                        ) -> ::core::result::Result<Self, __D::Error> {
                            #path(deserializer).map(__With)
                        }
                    }
                    ::serde::de::MapAccess::next_value::<__With>(&mut map).map(|w| w.0)
                }}
            }
            None => quote!(::serde::de::MapAccess::next_value::<#ty>(&mut map)),
        };
        arms.push(quote!(#index => #read.map(|v| #slot = ::core::option::Option::Some(v)),));
        let init = if option_inner(ty).is_some() {
            quote!(#ident: #slot.flatten(),)
        } else if attrs.default {
            quote!(#ident: #slot.unwrap_or_default(),)
        } else {
            required.push(quote! {
                if #slot.is_none() {
                    return ::core::result::Result::Err(<__A::Error as ::serde::de::Error>::missing_field(#js_name));
                }
            });
            quote!(#ident: #slot.unwrap(),)
        };
        inits.push(init);
        names.push(js_name);
    }
    let type_name = name.to_string();
    Ok(quote! {
        impl<'de> ::serde::Deserialize<'de> for #name #ty_generics #where_clause {
            fn deserialize<__D: ::serde::Deserializer<'de>>(
                deserializer: __D,
            ) -> ::core::result::Result<Self, __D::Error> {
                const NAMES: &[&str] = &[#(#names),*];
                struct __Visitor;
                impl<'de> ::serde::de::Visitor<'de> for __Visitor {
                    type Value = #name;
                    fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        f.write_str("an object")
                    }
                    fn visit_map<__A: ::serde::de::MapAccess<'de>>(
                        self,
                        mut map: __A,
                    ) -> ::core::result::Result<#name, __A::Error> {
                        #(#slots)*
                        // One way out on an error, so the slots read so far are dropped in
                        // one place rather than at every member.
                        let mut failed = ::core::option::Option::None;
                        loop {
                            let step = match ::serde::de::MapAccess::next_key_seed(
                                &mut map,
                                ::fundraising_core::shape::FieldIndex(NAMES),
                            ) {
                                ::core::result::Result::Ok(::core::option::Option::Some(index)) => match index {
                                    #(#arms)*
                                    _ => ::serde::de::MapAccess::next_value::<::serde::de::IgnoredAny>(&mut map).map(|_| ()),
                                },
                                ::core::result::Result::Ok(::core::option::Option::None) => break,
                                ::core::result::Result::Err(e) => ::core::result::Result::Err(e),
                            };
                            if let ::core::result::Result::Err(e) = step {
                                failed = ::core::option::Option::Some(e);
                                break;
                            }
                        }
                        if let ::core::option::Option::Some(e) = failed {
                            return ::core::result::Result::Err(e);
                        }
                        #(#required)*
                        ::core::result::Result::Ok(#name { #(#inits)* })
                    }
                }
                ::serde::Deserializer::deserialize_struct(deserializer, #type_name, NAMES, __Visitor)
            }
        }
    }
    .into())
}
