//! CTC strings: a region's source context, in OPARI2's format.

use super::Region;
use crate::directive::Directive;
use crate::model::Model;
use crate::source::SourceFile;

/// The keys beyond type and position that describe a construct.
pub fn aux(model: &Model, site_index: usize, directive: &Directive) -> Vec<(String, String)> {
    let mut aux = Vec::new();
    if directive.name == "critical" {
        if let Some(name) = &directive.argument {
            aux.push(("criticalName".into(), name.trim().to_string()));
        }
    }
    if directive.name == "inst begin" {
        if let Some(name) = &directive.argument {
            aux.push(("userRegionName".into(), name.trim().to_string()));
        }
    }
    if directive.spec().leaves.iter().any(|l| l == "sections") {
        // Sites are in file order: the sections are among those inside
        // the construct's block.
        let site = &model.sites[site_index];
        let block_end = site.block.as_ref().map_or(site.span.end, |b| b.end);
        let sections = model.sites[site_index + 1..]
            .iter()
            .take_while(|s| s.span.start < block_end)
            .filter(|s| s.parent == Some(site_index) && s.directive.name == "section")
            .count();
        aux.push(("numSections".into(), sections.to_string()));
    }
    let flag = |aux: &mut Vec<(String, String)>, clause: &str, key: &str| {
        if directive.has_clause(clause) {
            aux.push((key.into(), "1".into()));
        }
    };
    flag(&mut aux, "ordered", "hasOrdered");
    flag(&mut aux, "if", "hasIf");
    flag(&mut aux, "num_threads", "hasNumThreads");
    flag(&mut aux, "reduction", "hasReduction");
    if let Some(schedule) = directive.clause("schedule") {
        aux.push(("hasSchedule".into(), "1".into()));
        let kind = schedule
            .modifier_split()
            .1
            .split(',')
            .next()
            .unwrap_or("")
            .trim()
            .to_string();
        aux.push(("scheduleType".into(), kind));
    }
    flag(&mut aux, "collapse", "hasCollapse");
    flag(&mut aux, "untied", "hasUntied");
    aux
}

/// `"<len>*regionType=...*sscl=f:a:b*escl=f:c:d*key=value*...**"`, where
/// `<len>` is the length of the whole string.
pub fn ctc_string(file: &SourceFile, region: &Region, pomp_id: Option<&str>) -> String {
    let path = file.path.to_string_lossy().replace(['*', '"', '\\'], "_");
    let mut body = format!(
        "*regionType={}*sscl={path}:{}:{}*escl={path}:{}:{}*",
        region.region_type,
        region.start_lines.0,
        region.start_lines.1,
        region.end_lines.0,
        region.end_lines.1
    );
    for (key, value) in &region.aux {
        body.push_str(&format!("{key}={}*", value.replace(['*', '"', '\\'], "_")));
    }
    if let Some(id) = pomp_id {
        body.push_str(&format!("pompId={id}*"));
    }
    body.push('*');
    with_length_prefix(&body)
}

fn with_length_prefix(body: &str) -> String {
    let mut digits = 1;
    loop {
        let total = body.len() + digits;
        if total.to_string().len() == digits {
            return format!("{total}{body}");
        }
        digits += 1;
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn length_prefix_counts_the_whole_string() {
        for body in ["*a**", &"*x".repeat(60), &"*y".repeat(600)] {
            let s = super::with_length_prefix(body);
            let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
            assert_eq!(digits.parse::<usize>().unwrap(), s.len());
        }
    }
}
