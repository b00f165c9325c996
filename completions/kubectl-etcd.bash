# bash completion for kubectl-etcd (from `kubectl-etcd completion bash`).
# Every answer comes from `kubectl-etcd __complete WORDS...`, which kubectl's
# plugin completion also runs for `kubectl etcd <TAB>`: flags and their values,
# EtcdCluster and member names, and file names where a file is wanted.

_kubectl_etcd() {
    local cur="${COMP_WORDS[COMP_CWORD]}"
    # Right after `--flag=` (or `:`), bash's current word is the `=` that
    # COMP_WORDBREAKS split off, while readline replaces the empty text
    # after it.
    if [[ -n "$cur" && "$cur" != *[!=:]* ]]; then
        cur=""
    fi
    local line last out entry strip directive=0
    local -a words=() found=()
    COMPREPLY=()
    if [[ -n "${COMP_LINE+set}" ]]; then
        line="${COMP_LINE:0:COMP_POINT}"
        read -r -a words <<<"$line"
        words=("${words[@]:1}")
        if [[ -z "$line" || "$line" =~ [[:space:]]$ ]]; then
            words+=("")
        fi
    else
        words=("${COMP_WORDS[@]:1:COMP_CWORD}")
    fi
    if [[ ${#words[@]} -eq 0 ]]; then
        words=("")
    fi
    last="${words[${#words[@]}-1]}"
    out="$("$1" __complete "${words[@]}" 2>/dev/null)" || return 0
    while IFS= read -r entry; do
        case "$entry" in
            :*) directive="${entry#:}" ;;
            "") ;;
            *) found+=("${entry%%$'\t'*}") ;;
        esac
    done <<<"$out"
    if (( directive & 1 )); then
        return 0
    fi
    # bash replaces only its own last word, which may be the tail of ours
    # (after `=` or `:`): offer the candidates from there.
    strip="${last%"$cur"}"
    for entry in "${found[@]}"; do
        if [[ "$entry" == "$strip"* ]]; then
            COMPREPLY+=("${entry#"$strip"}")
        fi
    done
    if (( directive & 2 )); then
        compopt -o nospace 2>/dev/null
    fi
    if [[ ${#found[@]} -eq 0 ]] && (( (directive & 4) == 0 )); then
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    fi
    return 0
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -o nosort -F _kubectl_etcd kubectl-etcd
else
    complete -F _kubectl_etcd kubectl-etcd
fi
