#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Writes bash, zsh and fish completions for gatehouse-cli and gatehouse from
# their own --help, so the completions cannot drift from the parsers.
# Usage: gen-completions.sh GATEHOUSE_CLI GATEHOUSE OUTDIR
set -euo pipefail
cli=$1
gui=$2
out=$3
mkdir -p "$out"

help_cli=$("$cli" --help)
# Options: "  -h, --help" or "  --url <URL>" at the start of a line.
options() { grep -oE '^ +(-[a-zA-Z], )?--[a-z][a-z0-9-]*' | grep -oE -- '--[a-z0-9-]+' | sort -u; }
cli_options=$(options <<<"$help_cli" | tr '\n' ' ')
# Commands: "  noun [verb] ..." lines of the Commands list (two spaces, a word).
commands=$(sed -n '/^Commands:/,/^$/p' <<<"$help_cli" | grep -E '^  [a-z]' | awk '{print $1}' | sort -u)
cmd_list=$(tr '\n' ' ' <<<"$commands")
verbs_of() {
    sed -n '/^Commands:/,/^$/p' <<<"$help_cli" | grep -E "^  $1 [a-z]" \
        | awk '{print $2}' | grep -E '^[a-z-]+$' | sort -u | tr '\n' ' ' || true
}
# One line per command that has verbs: printf FORMAT with the command and its verbs.
each_command_verbs() {
    local c v
    for c in $commands; do
        v=$(verbs_of "$c")
        if [ -n "$v" ]; then printf "$1\n" "$c" "$v"; fi
    done
}

gui_options=$(QT_QPA_PLATFORM=offscreen "$gui" --help 2>/dev/null | options | tr '\n' ' ')

{
    echo "# bash completion for gatehouse-cli and gatehouse (generated from --help)"
    echo "_gatehouse_cli() {"
    echo '    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} i noun=""'
    echo '    for ((i = 1; i < COMP_CWORD; i++)); do'
    echo '        case ${COMP_WORDS[i]} in -*) ;; *) noun=${COMP_WORDS[i]}; break ;; esac'
    echo '    done'
    echo "    case \$cur in -*) COMPREPLY=(\$(compgen -W \"$cli_options\" -- \"\$cur\")); return ;; esac"
    echo '    case $noun in'
    echo "        \"\") COMPREPLY=(\$(compgen -W \"$cmd_list\" -- \"\$cur\")) ;;"
    each_command_verbs '        %s) [ "$prev" = "$noun" ] && COMPREPLY=($(compgen -W "%s" -- "$cur")) ;;'
    echo '    esac'
    echo '}'
    echo 'complete -o default -F _gatehouse_cli gatehouse-cli'
    echo "complete -o default -W \"$gui_options\" gatehouse"
} >"$out/gatehouse-cli.bash"

{
    echo "#compdef gatehouse-cli gatehouse"
    echo "# zsh completion for gatehouse-cli and gatehouse (generated from --help)"
    echo '_gatehouse() {'
    echo '    if [[ $service == gatehouse ]]; then'
    echo "        compadd -- $gui_options"
    echo '        return'
    echo '    fi'
    echo '    if [[ $PREFIX == -* ]]; then'
    echo "        compadd -- $cli_options"
    echo '    elif (( CURRENT == 2 )) || [[ ${words[CURRENT-1]} == -* ]]; then'
    echo "        compadd -- $cmd_list"
    echo '    else'
    echo '        case ${words[CURRENT-1]} in'
    each_command_verbs '            %s) compadd -- %s ;;'
    echo '            *) _files ;;'
    echo '        esac'
    echo '    fi'
    echo '}'
    echo '_gatehouse "$@"'
} >"$out/_gatehouse-cli"

{
    echo "# fish completion for gatehouse-cli and gatehouse (generated from --help)"
    echo "complete -c gatehouse-cli -n __fish_use_subcommand -f -a '$cmd_list'"
    each_command_verbs "complete -c gatehouse-cli -n '__fish_seen_subcommand_from %s' -f -a '%s'"
    for o in $cli_options; do echo "complete -c gatehouse-cli -l ${o#--}"; done
    for o in $gui_options; do echo "complete -c gatehouse -l ${o#--}"; done
} >"$out/gatehouse-cli.fish"
cp "$out/gatehouse-cli.fish" "$out/gatehouse.fish"
