function __feedsh_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __feedsh_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __feedsh_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __feedsh_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __feedsh_parse_tokens -S
    set -l unparsed_tokens (__feedsh_tokens -pc)
    switch $unparsed_tokens[1]
    case 'feedsh'
        __feedsh_parse_subcommand 0 'f=' 'c=' 'demo' 'itunes-url=' 'posts-url=' 'met-url=' 'index-url=' 'download-dir=' 'cache-dir=' 'library=' 'keep-going' 'engine=' 'max-concurrent=' 'max-filesize=' 'limit-rate=' 'json' 'no-color' 'no-pager' 'detach' 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'serve'
            __feedsh_parse_subcommand 0 'listen=' 'update-every=' 'json' 'no-web' 'library=' 'download-dir=' 'version' 'h/help'
        case 'mcp'
            __feedsh_parse_subcommand 0 'allow-changes' 'library=' 'download-dir=' 'version' 'h/help'
        case 'serve-fixtures'
            __feedsh_parse_subcommand 0 'port=' 'rate=' 'version' 'h/help'
        case 'help'
            __feedsh_parse_subcommand -r 1 'version'
        end
    end
end

function __feedsh_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __feedsh_parse_subcommand -S -a positional_count
    argparse -s r -- $argv
    set -l option_specs $argv[2..]
    set -l is_repeating_positional $_flag_r
    set -el _flag_r
    set -a commands $unparsed_tokens[1]
    set positional_index 0
    while true
        set -e unparsed_tokens[1]
        argparse -sn "$commands" $option_specs -- $unparsed_tokens 2> /dev/null
        set unparsed_tokens $argv
        set positional_index (math $positional_index + 1)
        for non_repeating_flag_or_option in $non_repeating_flags_or_options
            if set -ql "_flag_$(string replace -a - _ -- $non_repeating_flag_or_option)"
                set non_repeating_flags_or_options_absent 1
                break
            end
        end
        test (count $unparsed_tokens) -eq 0 -o \( -z "$is_repeating_positional" -a "$positional_index" -gt "$positional_count" \) && break
    end
end

function __feedsh_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __feedsh_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__feedsh_tokens -p)
    if test -z "$(__feedsh_tokens -t)"
        set -l index (count (__feedsh_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'feedsh' -f
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh" f' -s 'f' -d 'Run the commands in FILE.' -rF
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh" c' -s 'c' -d 'Run these commands, separated by \';\'.' -rfka ''
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh" demo' -l 'demo' -d 'Serve the built-in fixtures on 127.0.0.1 and use them for every API (works offline), with a library and downloads of its own.'
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh" itunes-url' -l 'itunes-url' -d 'iTunes API root (env FEEDSH_ITUNES_URL).' -rfka ''
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh" posts-url' -l 'posts-url' -d 'Posts API root (env FEEDSH_POSTS_URL).' -rfka ''
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh" met-url' -l 'met-url' -d 'Met collection API root (env FEEDSH_MET_URL).' -rfka ''
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh" index-url' -l 'index-url' -d 'Podcast Index API root (env FEEDSH_PODCASTINDEX_URL; default https://api.podcastindex.org/api/1.0).' -rfka ''
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh" download-dir' -l 'download-dir' -d 'Where episodes are saved (env FEEDSH_DOWNLOAD_DIR; default $XDG_DATA_HOME/feedsh/downloads).' -rfa '(__feedsh_complete_directories)'
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh" cache-dir' -l 'cache-dir' -d 'Where fetched images are kept (env FEEDSH_CACHE_DIR; default $XDG_CACHE_HOME/feedsh).' -rfa '(__feedsh_complete_directories)'
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh" library' -l 'library' -d 'The podcast library (env FEEDSH_LIBRARY; default $XDG_DATA_HOME/feedsh/library.sqlite).' -rF
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh" keep-going' -l 'keep-going' -d 'Continue a script after a command fails (the exit status is still 1).'
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh" engine' -l 'engine' -d 'Download transport: ahc (AsyncHTTPClient) or urlsession.' -rfka 'ahc urlsession'
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh" max-concurrent' -l 'max-concurrent' -d 'Downloads that run at once; the rest are queued (default: the max-concurrent setting, else 3).' -rfka ''
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh" max-filesize' -l 'max-filesize' -d 'The largest file a download may be, as curl writes it: 500M, 4G (default: the max-size setting, else 4G).' -rfka '500M 1G 4G'
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh" limit-rate' -l 'limit-rate' -d 'Cap the total download rate, bytes a second as curl writes it: 200k, 1.5M (default: the rate-limit setting, else none).' -rfka ''
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh" json' -l 'json' -d 'Write every result, event and error as one JSON object a line on standard output.'
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh" no-color' -l 'no-color' -d 'No colour or styling (also when NO_COLOR is set, TERM=dumb or output is not a terminal).'
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh" no-pager' -l 'no-pager' -d 'Print long results at the prompt without a pager (default: $PAGER, else less -FRX).'
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh" detach' -l 'detach' -d 'At the end of a script, hand running downloads to a background feedsh instead of waiting.'
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh" version' -l 'version' -d 'Show the version.'
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_positional "feedsh" -eq 1' -fa 'serve' -d 'Serve your library as a web player and your downloads as podcast feeds, for any podcast app.'
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_positional "feedsh" -eq 1' -fa 'mcp' -d 'Your library for assistants: a Model Context Protocol server on standard input and output.'
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_positional "feedsh" -eq 1' -fa 'serve-fixtures' -d 'Serve the built-in fixtures over HTTP until interrupted.'
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_positional "feedsh" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh serve" listen' -l 'listen' -d 'Address and port to listen on (port 0 picks a free one).' -rfka ''
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh serve" update-every' -l 'update-every' -d 'Update every subscription this often (30m, 1h), downloading new episodes by the auto-download rules.' -rfka ''
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh serve" json' -l 'json' -d 'Log each request and update as one JSON object a line.'
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh serve" no-web' -l 'no-web' -d 'Serve only the feeds, OPML and files: no web page at / and no /api/.'
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh serve" library' -l 'library' -d 'The library file (env FEEDSH_LIBRARY).' -rF
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh serve" download-dir' -l 'download-dir' -d 'Where episodes are saved (env FEEDSH_DOWNLOAD_DIR).' -rfa '(__feedsh_complete_directories)'
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh serve" version' -l 'version' -d 'Show the version.'
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh serve" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh mcp" allow-changes' -l 'allow-changes' -d 'List and run the tools that change the library: queue_add, mark, download, subscribe.'
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh mcp" library' -l 'library' -d 'The library file (env FEEDSH_LIBRARY).' -rF
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh mcp" download-dir' -l 'download-dir' -d 'Where episodes are saved (env FEEDSH_DOWNLOAD_DIR).' -rfa '(__feedsh_complete_directories)'
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh mcp" version' -l 'version' -d 'Show the version.'
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh mcp" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh serve-fixtures" port' -l 'port' -d 'Port to listen on (0 picks a free one).' -rfka ''
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh serve-fixtures" rate' -l 'rate' -d 'Media bytes a second (0: unthrottled).' -rfka ''
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh serve-fixtures" version' -l 'version' -d 'Show the version.'
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh serve-fixtures" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'feedsh' -n '__feedsh_should_offer_completions_for_flags_or_options "feedsh help" version' -l 'version' -d 'Show the version.'
