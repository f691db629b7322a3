//! [`Coefficients`]: a linear model's weights by feature name, in the target's units.

use io::Standardizer;
use nn::NamedArray;
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

/// The coefficients of a one-layer model with one output, by feature name, and its intercept.
/// The features are the encoded (standardised) ones, so a coefficient is the change of the
/// output per standard deviation of a number, or for a level against none; regression
/// coefficients are in the target's units, logistic ones in log-odds of the positive class.
/// Serialises to `{"intercept": .., "coefficients": {name: value, ..}}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Coefficients {
    /// The output for features at their mean (and no level).
    pub intercept: f32,
    /// The feature names and their coefficients, in feature order.
    #[serde(serialize_with = "by_name")]
    pub coefficients: Vec<(String, f32)>,
}

fn by_name<S: Serializer>(c: &[(String, f32)], s: S) -> Result<S::Ok, S::Error> {
    let mut sorted: Vec<&(String, f32)> = c.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let mut map = s.serialize_map(Some(sorted.len()))?;
    for (name, value) in sorted {
        map.serialize_entry(name, value)?;
    }
    map.end()
}

impl Coefficients {
    /// The coefficients of a model whose state is one `weight` (`names.len()` values) and
    /// one `bias`, in the units `targets` standardised away (`None`: as they are); `None`
    /// for another model.
    pub fn of_linear(
        state: &[NamedArray],
        names: &[String],
        targets: Option<&Standardizer>,
    ) -> Option<Self> {
        let find = |suffix: &str| state.iter().find(|a| a.name.ends_with(suffix));
        let (w, b) = (find("weight")?, find("bias")?);
        if w.data.len() != names.len() || b.data.len() != 1 {
            return None;
        }
        let (scale, shift) = targets.map_or((1.0, 0.0), |t| (t.std[0], t.mean[0]));
        Some(Coefficients {
            intercept: b.data[0] * scale + shift,
            coefficients: names
                .iter()
                .cloned()
                .zip(w.data.iter().map(|v| v * scale))
                .collect(),
        })
    }

    /// The coefficients, largest in size first (ties in feature order).
    pub fn by_size(&self) -> Vec<&(String, f32)> {
        let mut order: Vec<&(String, f32)> = self.coefficients.iter().collect();
        order.sort_by(|a, b| b.1.abs().total_cmp(&a.1.abs()));
        order
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coefficients_are_in_target_units_by_name() {
        let state = [
            NamedArray::new("layers.0.weight", vec![2, 1], vec![0.5, -2.0]).unwrap(),
            NamedArray::new("layers.0.bias", vec![1], vec![1.0]).unwrap(),
        ];
        let names = ["b".to_string(), "a".to_string()];
        let t = Standardizer {
            mean: vec![10.0],
            std: vec![4.0],
        };
        let c = Coefficients::of_linear(&state, &names, Some(&t)).unwrap();
        assert_eq!(c.intercept, 14.0);
        assert_eq!(c.by_size()[0], &("a".to_string(), -8.0));
        let json = serde_json::to_string(&c).unwrap();
        assert_eq!(
            json,
            r#"{"intercept":14.0,"coefficients":{"a":-8.0,"b":2.0}}"#
        );
        assert!(Coefficients::of_linear(&state, &names[..1], None).is_none());
    }
}
