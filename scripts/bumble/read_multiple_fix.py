"""Bumble's GATT server (0.0.236) sends nothing back for a Read Multiple Variable Request naming an
attribute the link may not read (one that needs encryption, say): the attribute's ATT_Error
escapes the handler, and the client waits out the 30 s ATT transaction timeout. The Core spec
(Vol 3, Part F, 3.4.4.11) answers such a request with an Error Response naming the first
attribute that cannot be read, as Bumble's single Read Request does.

`install()` replaces the handler with one that does so; peers whose attributes need encryption
call it before serving.
"""
from bumble import att, gatt_server, utils


@utils.AsyncRunner.run_in_task()
async def _read_multiple_variable(self, bearer, request):
    space = bearer.att_mtu - 1
    entries = []
    for handle in request.set_of_handles:
        attribute = self.get_attribute(handle)
        if attribute is None:
            error = att.ATT_ATTRIBUTE_NOT_FOUND_ERROR
        else:
            try:
                value = await attribute.read_value(bearer)
                error = None
            except att.ATT_Error as refusal:
                error = refusal.error_code
        if error is not None:
            self.send_response(bearer, att.ATT_Error_Response(
                request_opcode_in_error=request.op_code, attribute_handle_in_error=handle, error_code=error))
            return
        length = len(value)
        value = value[:min(bearer.att_mtu - 3, 251)]
        entries.append((length, value))
        space -= 2 + len(value)
        if space <= 0:
            break
    self.send_response(bearer, att.ATT_Read_Multiple_Variable_Response(length_value_tuple_list=entries))


def install():
    gatt_server.Server.on_att_read_multiple_variable_request = _read_multiple_variable
