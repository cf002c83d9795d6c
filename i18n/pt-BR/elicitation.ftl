# Textos de <koder-mcp-elicitation>. Os ids são as chaves da especificação com pontos trocados por hifens.

## Ações
mcp-elicitation-action-accept = Enviar
mcp-elicitation-action-reject = Recusar
mcp-elicitation-action-cancel = Cancelar

## Diálogo
mcp-elicitation-server-unknown = Servidor desconhecido
mcp-elicitation-server-from = De { $server }
mcp-elicitation-title-default = Informação solicitada
mcp-elicitation-queue = { $position } de { $total }
mcp-elicitation-queue-announce = Pedido { $position } de { $total }
mcp-elicitation-required-legend = Campos marcados com * são obrigatórios.
mcp-elicitation-reason-label = Motivo da recusa (opcional)
mcp-elicitation-secret-warning = Este formulário pede algo que parece um segredo. O MCP proíbe que servidores peçam senhas, tokens ou chaves em um formulário; não digite segredos reais aqui.
mcp-elicitation-select-placeholder = Escolha…
mcp-elicitation-tags-hint = Pressione Enter ou vírgula para adicionar.
mcp-elicitation-tags-remove = Remover { $tag }

## Tempo limite
mcp-elicitation-timeout_warning = Fechando em { $seconds }s
mcp-elicitation-timeout-announce = { $seconds ->
    [one] Este pedido fecha em { $seconds } segundo.
   *[other] Este pedido fecha em { $seconds } segundos.
}

## Validação
mcp-elicitation-field_required = Obrigatório
mcp-elicitation-error-required_property = { $property } é obrigatório
mcp-elicitation-error-type = Deve ser do tipo { $expected }
mcp-elicitation-error-min_length = { $limit ->
    [one] Digite pelo menos { $limit } caractere
   *[other] Digite pelo menos { $limit } caracteres
}
mcp-elicitation-error-max_length = { $limit ->
    [one] Digite no máximo { $limit } caractere
   *[other] Digite no máximo { $limit } caracteres
}
mcp-elicitation-error-pattern = Não corresponde ao formato esperado
mcp-elicitation-error-format-email = Digite um endereço de e-mail válido
mcp-elicitation-error-format-uri = Digite um endereço completo, como https://example.com
mcp-elicitation-error-format-date = Digite uma data válida
mcp-elicitation-error-format-date_time = Digite uma data e hora válidas
mcp-elicitation-error-format-other = Deve ser um { $format } válido
mcp-elicitation-error-minimum = Deve ser no mínimo { $limit }
mcp-elicitation-error-maximum = Deve ser no máximo { $limit }
mcp-elicitation-error-exclusive_minimum = Deve ser maior que { $limit }
mcp-elicitation-error-exclusive_maximum = Deve ser menor que { $limit }
mcp-elicitation-error-enum = Escolha uma das opções listadas
mcp-elicitation-error-const = Deve ser o único valor permitido
mcp-elicitation-error-min_items = { $limit ->
    [one] Escolha pelo menos { $limit } item
   *[other] Escolha pelo menos { $limit } itens
}
mcp-elicitation-error-max_items = { $limit ->
    [one] Escolha no máximo { $limit } item
   *[other] Escolha no máximo { $limit } itens
}
mcp-elicitation-error-unique_items = Os itens não podem se repetir
mcp-elicitation-error-not_a_number = Digite um número
mcp-elicitation-error-not_an_integer = Digite um número inteiro
mcp-elicitation-error-not_a_date_time = Digite uma data e hora válidas

## Modo URL
mcp-elicitation-url_mode-opening = Abrindo página externa
mcp-elicitation-url_mode-title = Abrir uma página externa?
mcp-elicitation-url_mode-address = Endereço
mcp-elicitation-url_mode-site = Site
mcp-elicitation-url_mode-open = Abrir página
mcp-elicitation-url_mode-note = A página abre em uma nova aba. Nada é carregado dela até você escolher Abrir página.
mcp-elicitation-url_mode-warning-development = Este é um endereço local de desenvolvimento sem criptografia (http).
mcp-elicitation-url_mode-warning-international = O endereço usa caracteres internacionais, que podem imitar outro site. Confira com cuidado.
mcp-elicitation-url_mode-blocked-unparsable = Este endereço não pode ser lido, então não será aberto.
mcp-elicitation-url_mode-blocked-scheme = Só endereços https seguros podem ser abertos.
mcp-elicitation-url_mode-blocked-insecure = Este endereço não é criptografado (http), então não será aberto.
mcp-elicitation-url_mode-blocked-credentials = Este endereço esconde um nome de usuário ou senha, então não será aberto.
mcp-elicitation-url_mode-waiting = Aguardando você concluir na página externa…
mcp-elicitation-url_mode-finished = Já terminei
# MCP 2026-07-28: o servidor pede de novo uma página que a pessoa já aceitou abrir.
mcp-elicitation-url_mode-resume-title = Conclua na página externa
mcp-elicitation-url_mode-resume = Aguardando você concluir em { $host }.
mcp-elicitation-url_mode-resume-note = Quando terminar lá, escolha Continuar.
mcp-elicitation-url_mode-continue = Continuar
mcp-elicitation-url_mode-open_again = Abrir de novo

## Inline presentation and the summary it leaves once settled
mcp-elicitation-inline-announce = { $server } precisa da sua resposta
mcp-elicitation-summary-accept = Enviado
mcp-elicitation-summary-decline = Recusado
mcp-elicitation-summary-cancel = Cancelado
mcp-elicitation-summary-timeout = Tempo esgotado
mcp-elicitation-summary-answered_by = Respondido por { $name }
mcp-elicitation-summary-opened = Página aberta: { $host }
mcp-elicitation-summary-reason = Motivo
mcp-elicitation-summary-yes = sim
mcp-elicitation-summary-no = não
mcp-elicitation-summary-hidden = (oculto)
mcp-elicitation-summary-number = { $value }

## Um toque (o atributo one-tap) e "lembrar" (_meta.persist do pedido)
mcp-elicitation-one_tap-accept = Aceitar
mcp-elicitation-one_tap-yes = Sim
mcp-elicitation-one_tap-no = Não
mcp-elicitation-persist-session = Permitir nesta sessão
mcp-elicitation-persist-always = Sempre permitir
mcp-elicitation-remember = Lembrar
mcp-elicitation-remember-once = Só desta vez
mcp-elicitation-remember-session = Nesta sessão
mcp-elicitation-remember-always = Sempre

## Terminal
# O comando koder-elicit (crates/terminal): perguntas, dicas e erros.
mcp-elicitation-terminal-keys = Esc ou Ctrl-C cancela e Ctrl-R recusa, a qualquer momento.
mcp-elicitation-terminal-default-mark = (padrão)
mcp-elicitation-terminal-hint-keep = Enter mantém o valor mostrado.
mcp-elicitation-terminal-hint-date = Formato AAAA-MM-DD, por exemplo 2026-12-31.
mcp-elicitation-terminal-hint-date_time = Formato AAAA-MM-DD HH:MM no seu horário local ({ $offset }), ou acrescente Z ou ±hh:mm.
mcp-elicitation-terminal-hint-email = Um endereço de e-mail, como nome@exemplo.com.
mcp-elicitation-terminal-hint-uri = Um endereço completo, como https://exemplo.com.
mcp-elicitation-terminal-hint-textarea = Enter começa uma nova linha; Ctrl-D termina.
mcp-elicitation-terminal-hint-editor = Ctrl-E abre { $editor }.
mcp-elicitation-terminal-hint-range = De { $min } a { $max }.
mcp-elicitation-terminal-hint-minimum = No mínimo { $min }.
mcp-elicitation-terminal-hint-maximum = No máximo { $max }.
mcp-elicitation-terminal-hint-integer = Um número inteiro.
mcp-elicitation-terminal-hint-boolean = Responda s (sim) ou n (não).
mcp-elicitation-terminal-yes = sim
mcp-elicitation-terminal-no = não
mcp-elicitation-terminal-hint-choice = Digite o número de uma opção (1 a { $count }).
mcp-elicitation-terminal-hint-multi = Digite os números das suas escolhas separados por vírgulas, por exemplo 1,3.
mcp-elicitation-terminal-hint-tags = Separe as etiquetas com vírgulas.
mcp-elicitation-terminal-hint-secret = O que você digita fica oculto.
mcp-elicitation-terminal-empty = (vazio)
mcp-elicitation-terminal-hidden = (oculto)
mcp-elicitation-terminal-summary = Revise suas respostas:
mcp-elicitation-terminal-confirm = Enter: { $submit } · e: editar um campo · r: { $reject } · Esc: { $cancel }
mcp-elicitation-terminal-edit-which = Número do campo a alterar:
mcp-elicitation-terminal-url-confirm = Enter: { $open } · r: { $reject } · Esc: { $cancel }
mcp-elicitation-terminal-url-blocked-keys = r: { $reject } · Esc: { $cancel }
mcp-elicitation-terminal-url-wait-keys = Pressione Enter quando terminar lá, ou Esc para parar de esperar.
mcp-elicitation-terminal-url-open-failed = Nenhum navegador pôde ser aberto. Abra você mesmo o endereço acima.
mcp-elicitation-terminal-url-completed = O servidor informa que a página externa foi concluída.
mcp-elicitation-terminal-url-again = Você já concordou em abrir esta página. Aguardando você terminar em { $host }.
mcp-elicitation-terminal-url-again-keys = Enter: { $continue } · o: { $open } · Esc: { $cancel }
mcp-elicitation-terminal-url-continue = Continuar
mcp-elicitation-terminal-url-open_again = Abrir de novo
mcp-elicitation-terminal-outcome-accept = Enviado.
mcp-elicitation-terminal-outcome-decline = Recusado.
mcp-elicitation-terminal-outcome-cancel = Cancelado.
mcp-elicitation-terminal-outcome-timeout = Fechado: o tempo acabou.
mcp-elicitation-terminal-outcome-server = O servidor retirou este pedido. Nada foi enviado.
mcp-elicitation-terminal-error-no_tty = Não há terminal para perguntar. Passe --answers JSON, ou execute koder-elicit em um terminal.
mcp-elicitation-terminal-error-answers = --answers deve ser um objeto JSON de nomes de campo e valores.
mcp-elicitation-terminal-error-answers_url = --answers responde a um formulário; um pedido no modo URL precisa de um terminal.
mcp-elicitation-terminal-error-unknown_answer = { $path } não corresponde a nenhum campo deste formulário
mcp-elicitation-terminal-error-invalid_answer = { $field }: { $problem }
mcp-elicitation-terminal-error-answers_round = Para uma rodada, --answers deve ser um objeto JSON que associa a chave de cada pedido às respostas daquele formulário.
mcp-elicitation-terminal-error-unknown_key = { $key } não corresponde a nenhuma elicitação desta rodada
mcp-elicitation-terminal-connect-calling = Chamando { $tool }…
mcp-elicitation-terminal-connect-from = Pedido de { $server }

## The system notification for a request that arrives while the page is hidden (`notify`)
mcp-elicitation-notification-title = { $server } precisa da sua resposta
